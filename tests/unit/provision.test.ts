import { describe, expect, it } from 'vitest'
import { formatProblems, needsOf, planProvisioning, provision, type Facts, type Machine, type ReplicaFacts, type Step } from '../../scripts/provision.mjs'

// The test provisioning's decisions, from made-up machine facts: what it installs, starts and
// creates, and the one message when it cannot. Nothing here probes or changes the real machine.

const debianRoot: Facts['os'] = { platform: 'linux', debianLike: true, apt: true, root: true }
const pgUrl = 'postgres://postgres@127.0.0.1:5432/qd_test'
const ready = (os: Facts['os'] = debianRoot): Facts => ({
  os,
  chromium: { path: '/usr/bin/chromium', override: false, present: true },
  postgres: { url: pgUrl, override: false, state: 'ok', installed: true, version: '17' },
  redis: { url: 'redis://127.0.0.1:6379', override: false, state: 'ok', installed: true },
})
const kinds = (steps: Step[]) => steps.map((s) => s.kind)

describe('planProvisioning', () => {
  it('only creates the test databases on a ready machine (no apt-get update)', () => {
    expect(planProvisioning(ready())).toEqual({ steps: [{ kind: 'create-databases', url: pgUrl, names: ['test', 'qd_test'] }], problems: [] })
  })

  it('installs everything with one apt-get update on a bare Debian machine as root, and trusts loopback on the cluster it installed', () => {
    const bare: Facts = {
      os: debianRoot,
      chromium: { path: '/usr/bin/chromium', override: false, present: false },
      postgres: { url: pgUrl, override: false, state: 'down', installed: false },
      redis: { url: 'redis://127.0.0.1:6379', override: false, state: 'down', installed: false },
    }
    expect(planProvisioning(bare)).toEqual({
      steps: [
        { kind: 'apt-update' },
        { kind: 'apt-install', packages: ['chromium', 'postgresql', 'redis-server'] },
        { kind: 'trust-postgres-loopback' },
        { kind: 'start-postgres' },
        { kind: 'start-redis' },
        { kind: 'create-databases', url: pgUrl, names: ['test', 'qd_test'] },
      ],
      problems: [],
    })
  })

  it('starts what is installed but down, without apt and without touching access rules', () => {
    const facts = ready()
    facts.postgres = { ...facts.postgres!, state: 'down' }
    facts.redis = { ...facts.redis!, state: 'down' }
    expect(planProvisioning(facts).steps).toEqual([
      { kind: 'start-postgres', version: '17' },
      { kind: 'start-redis' },
      { kind: 'create-databases', url: pgUrl, names: ['test', 'qd_test'] },
    ])
  })

  it('installs only Chromium when only Chromium is missing', () => {
    const facts = ready()
    facts.chromium = { ...facts.chromium!, present: false }
    expect(kinds(planProvisioning(facts).steps)).toEqual(['apt-update', 'apt-install', 'create-databases'])
    expect(planProvisioning(facts).steps[1]).toEqual({ kind: 'apt-install', packages: ['chromium'] })
  })

  it('installs HAProxy with Chromium in one apt-get install when the scale and e2e stages need them', () => {
    const facts: Facts = { ...ready(), haproxy: { path: '/usr/sbin/haproxy', override: false, present: false } }
    facts.chromium = { ...facts.chromium!, present: false }
    expect(planProvisioning(facts).steps.slice(0, 2)).toEqual([{ kind: 'apt-update' }, { kind: 'apt-install', packages: ['chromium', 'haproxy'] }])
    // Present: nothing to install.
    expect(kinds(planProvisioning({ ...ready(), haproxy: { path: '/usr/sbin/haproxy', override: false, present: true } }).steps)).toEqual(['create-databases'])
  })

  it('names the command that installs HAProxy when it cannot, and only checks HAPROXY_PATH', () => {
    const notRoot: Facts = { ...ready({ ...debianRoot, root: false }), haproxy: { path: '/usr/sbin/haproxy', override: false, present: false } }
    expect(planProvisioning(notRoot)).toEqual({
      steps: [],
      problems: [
        {
          what: 'HAProxy is not at /usr/sbin/haproxy (for the scale stage’s load balancer), and it cannot be installed here: not running as root.',
          commands: ['sudo apt-get update && sudo apt-get install -y haproxy'],
        },
      ],
    })
    const mac: Facts = {
      os: { platform: 'darwin', debianLike: false, apt: false, root: false },
      haproxy: { path: '/usr/sbin/haproxy', override: false, present: false },
    }
    expect(planProvisioning(mac).problems[0].commands).toEqual(['brew install haproxy', 'export HAPROXY_PATH="$(brew --prefix)/sbin/haproxy"'])
    const override: Facts = { ...ready(), haproxy: { path: '/opt/haproxy/sbin/haproxy', override: true, present: false } }
    expect(planProvisioning(override)).toEqual({
      steps: [],
      problems: [
        {
          what: 'HAProxy is not at HAPROXY_PATH=/opt/haproxy/sbin/haproxy (for the scale stage’s load balancer).',
          commands: ['export HAPROXY_PATH=/path/to/haproxy', 'or unset HAPROXY_PATH and let npm test install Debian’s haproxy (as root)'],
        },
      ],
    })
  })

  it('starts an installed Redis without root (redis-server needs none)', () => {
    const facts = ready({ ...debianRoot, root: false })
    facts.redis = { ...facts.redis!, state: 'down' }
    expect(kinds(planProvisioning(facts).steps)).toEqual(['start-redis', 'create-databases'])
  })

  it('stops with every missing piece and its command when not root, changing nothing', () => {
    const facts: Facts = {
      os: { ...debianRoot, root: false },
      chromium: { path: '/usr/bin/chromium', override: false, present: false },
      postgres: { url: pgUrl, override: false, state: 'down', installed: true, version: '16' },
      redis: { url: 'redis://127.0.0.1:6379', override: false, state: 'down', installed: false },
    }
    const { steps, problems } = planProvisioning(facts)
    expect(steps).toEqual([])
    expect(problems).toEqual([
      {
        what: expect.stringMatching(/^Chromium is not at \/usr\/bin\/chromium .*not running as root/),
        commands: ['sudo apt-get update && sudo apt-get install -y chromium'],
      },
      {
        what: expect.stringMatching(/^PostgreSQL is installed but not answering on 127\.0\.0\.1:5432/),
        commands: ['sudo pg_ctlcluster --skip-systemctl-redirect 16 main start'],
      },
      {
        what: expect.stringMatching(/^Redis is not answering .* not installed/),
        commands: [
          'sudo apt-get update && sudo apt-get install -y redis-server',
          'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
        ],
      },
    ])
    const message = formatProblems(problems)
    expect(message.split('\n')[0]).toBe('npm test cannot start: this machine lacks what the tests need, and it cannot be provided here.')
    expect(message).toContain('    sudo apt-get update && sudo apt-get install -y chromium')
    expect(message).toMatch(/TEST_DATABASE_URL, TEST_REDIS_URL, CHROMIUM_PATH or HAPROXY_PATH\.$/)
  })

  it.each([
    ['another OS', { platform: 'darwin', debianLike: false, apt: false, root: false }, /not Debian or Ubuntu \(darwin\)/, 'brew install --cask chromium'],
    ['no apt', { platform: 'linux', debianLike: true, apt: false, root: true }, /apt-get is not available/, 'apt-get update && apt-get install -y chromium'],
    [
      'apt unreachable',
      { ...debianRoot, aptError: 'apt-get update -qq failed (exit 100)' },
      /apt-get failed \(apt-get update -qq failed \(exit 100\)\); is the package mirror reachable\?/,
      'apt-get update && apt-get install -y chromium',
    ],
  ])('names the reason and the command on %s', (_name, os, why, command) => {
    const facts = ready(os as Facts['os'])
    facts.chromium = { ...facts.chromium!, present: false }
    const { steps, problems } = planProvisioning(facts)
    expect(steps).toEqual([])
    expect(problems).toHaveLength(1)
    expect(problems[0].what).toMatch(why)
    expect(problems[0].commands[0]).toBe(command)
  })

  it('only checks services the user pointed to, never installing or starting them', () => {
    const facts: Facts = {
      os: debianRoot,
      chromium: { path: '/opt/chrome/chrome', override: true, present: false },
      postgres: { url: 'postgres://me:pw@db.internal:6543/mine', override: true, state: 'down', detail: 'ECONNREFUSED', installed: false },
      redis: { url: 'redis://cache.internal:6380', override: true, state: 'down', detail: 'timeout', installed: false },
    }
    const { steps, problems } = planProvisioning(facts)
    expect(steps).toEqual([])
    expect(problems.map((p) => p.what)).toEqual([
      'Chromium is not at CHROMIUM_PATH=/opt/chrome/chrome (for the end-to-end tests).',
      'The PostgreSQL at TEST_DATABASE_URL (db.internal:6543) does not answer: ECONNREFUSED.',
      'The Redis at TEST_REDIS_URL (cache.internal:6380) does not answer: timeout.',
    ])
  })

  it('creates only the database an override names', () => {
    const facts = ready()
    facts.postgres = { ...facts.postgres!, url: 'postgres://me@db.internal/mine', override: true }
    expect(planProvisioning(facts).steps).toEqual([{ kind: 'create-databases', url: 'postgres://me@db.internal/mine', names: ['mine'] }])
  })

  it('leaves the access rules of a cluster it did not install alone, and says how to fix them', () => {
    const facts = ready()
    facts.postgres = { ...facts.postgres!, state: 'auth', detail: 'password authentication failed for user "postgres"' }
    const { steps, problems } = planProvisioning(facts)
    expect(steps).toEqual([])
    expect(problems[0].what).toMatch(/refuses user postgres without a password/)
    expect(problems[0].commands.join('\n')).toMatch(/host all postgres 127\.0\.0\.1\/32 trust/)
  })

  it('asks only for what the selected stages need', () => {
    expect(needsOf([])).toEqual({ chromium: true, haproxy: true, postgres: true, redis: true, replica: true })
    expect(needsOf(['lint', 'typecheck', 'unit'])).toEqual({ chromium: false, haproxy: false, postgres: false, redis: false, replica: false })
    expect(needsOf(['node-lines'])).toEqual({ chromium: false, haproxy: false, postgres: true, redis: true, replica: false })
    expect(needsOf(['e2e'])).toEqual({ chromium: true, haproxy: false, postgres: false, redis: false, replica: false })
    expect(needsOf(['integration-replica'])).toEqual({ chromium: false, haproxy: false, postgres: true, redis: false, replica: true })
    expect(needsOf(['scale'])).toEqual({ chromium: false, haproxy: true, postgres: true, redis: true, replica: false })
    const facts: Facts = { os: { platform: 'win32', debianLike: false, apt: false, root: false } }
    expect(planProvisioning(facts)).toEqual({ steps: [], problems: [] })
  })
})

describe('planProvisioning: the replica of the integration-replica stage', () => {
  const dir = '/work/app/.cache/pg-replica'
  const replicaUrl = 'postgres://postgres@127.0.0.1:5433/qd_test'
  const binDir = '/usr/lib/postgresql/17/bin'
  const primary = { host: '127.0.0.1', port: 5432 }
  const withReplica = (replica: Partial<ReplicaFacts>, os: Facts['os'] = debianRoot): Facts => {
    const { chromium: _c, redis: _r, ...facts } = ready(os)
    return {
      ...facts,
      replica: {
        url: replicaUrl,
        override: false,
        state: 'down',
        dir,
        dirState: 'absent',
        version: '17',
        binDir,
        primary: { ...primary, local: true },
        replication: 'ok',
        ...replica,
      },
    }
  }
  const start = { kind: 'start-replica', dir, binDir, port: 5433, url: replicaUrl, primary }
  const make = { kind: 'make-replica', dir, binDir, primary }

  it('does nothing to a replica that streams', () => {
    expect(kinds(planProvisioning(withReplica({ state: 'ok' })).steps)).toEqual(['create-databases'])
  })

  it('trusts replication over loopback, makes the replica and starts it, after the test databases', () => {
    expect(planProvisioning(withReplica({ replication: 'refused' })).steps).toEqual([
      { kind: 'create-databases', url: pgUrl, names: ['test', 'qd_test'] },
      { kind: 'trust-replication-loopback', version: '17' },
      make,
      start,
    ])
  })

  it('starts a valid data directory as it is, and makes a broken one again', () => {
    expect(planProvisioning(withReplica({ dirState: 'valid' })).steps.slice(1)).toEqual([start])
    expect(planProvisioning(withReplica({ dirState: 'broken' })).steps.slice(1)).toEqual([make, start])
  })

  it('stops and makes again a replica that runs but does not stream', () => {
    expect(planProvisioning(withReplica({ state: 'not-streaming', dirState: 'valid' })).steps.slice(1)).toEqual([
      { kind: 'stop-replica', dir, binDir },
      make,
      start,
    ])
  })

  it('stops with the commands when not root, changing nothing', () => {
    const { steps, problems } = planProvisioning(withReplica({ replication: 'refused' }, { ...debianRoot, root: false }))
    expect(steps).toEqual([])
    expect(problems).toHaveLength(1)
    expect(problems[0].what).toBe(
      'No streaming replica answers on 127.0.0.1:5433 (for the integration-replica stage), and it cannot be made here: not running as root.',
    )
    const commands = problems[0].commands.join('\n')
    expect(commands).toContain("sudo sed -i '1i host replication postgres 127.0.0.1/32 trust' /etc/postgresql/17/main/pg_hba.conf")
    expect(commands).toContain(`sudo runuser -u postgres -- ${binDir}/pg_basebackup -h 127.0.0.1 -p 5432 -U postgres -D ${dir} -R -X stream -c fast`)
    expect(commands).toContain(`${binDir}/pg_ctl -D ${dir}`)
    expect(commands).toMatch(/export TEST_REPLICA_URL=/)
  })

  it('names the missing server binaries, and on another OS the commands in general', () => {
    expect(planProvisioning(withReplica({ binDir: undefined })).problems[0].what).toMatch(/no PostgreSQL 17 server binaries at \/usr\/lib\/postgresql\/17\/bin/)
    const mac = planProvisioning(withReplica({ binDir: undefined, version: undefined }, { platform: 'darwin', debianLike: false, apt: false, root: false }))
    expect(mac.problems[0].commands[0]).toMatch(
      /^make a streaming replica of the test PostgreSQL and start it on 127\.0\.0\.1:5433: pg_basebackup -h 127\.0\.0\.1 -p 5432 -U postgres -D/,
    )
  })

  it('never changes the access rules of a TEST_DATABASE_URL server', () => {
    const { steps, problems } = planProvisioning(withReplica({ replication: 'refused', primary: { host: 'db.internal', port: 6543, local: false } }))
    expect(steps).toEqual([])
    expect(problems[0].what).toMatch(/the PostgreSQL at TEST_DATABASE_URL \(db\.internal:6543\) refuses replication connections/)
  })

  it('only checks a TEST_REPLICA_URL, and refuses a port taken by something else', () => {
    const pointed = planProvisioning(withReplica({ override: true, url: 'postgres://me@replica.internal:6000/qd_test', detail: 'ECONNREFUSED' }))
    expect(pointed.steps).toEqual([])
    expect(pointed.problems.map((p) => p.what)).toEqual(['The replica at TEST_REPLICA_URL (replica.internal:6000) does not answer: ECONNREFUSED.'])
    const taken = planProvisioning(withReplica({ state: 'not-replica' }))
    expect(taken.steps).toEqual([])
    expect(taken.problems[0].what).toMatch(/^127\.0\.0\.1:5433 is answered by a PostgreSQL that is not in recovery/)
  })
})

describe('provision', () => {
  function fakeMachine(sequence: Facts[], fail?: Step['kind']) {
    const ran: Step[] = []
    let probes = 0
    const machine: Machine = {
      probe: async () => sequence[Math.min(probes++, sequence.length - 1)],
      runStep: async (step) => {
        ran.push(step)
        if (step.kind === fail) throw new Error(`${step.kind} failed`)
      },
    }
    return { machine, ran }
  }
  const bare = (): Facts => {
    const f = ready()
    f.chromium = { ...f.chromium!, present: false }
    f.redis = { ...f.redis!, state: 'down', installed: false }
    return f
  }

  it('runs the plan and checks the machine again', async () => {
    const { machine, ran } = fakeMachine([bare(), ready()])
    const lines: string[] = []
    await provision({ machine, log: (l) => lines.push(l) })
    expect(kinds(ran)).toEqual(['apt-update', 'apt-install', 'start-redis', 'create-databases'])
    expect(lines).toEqual(['[provision] apt-get update; apt-get install chromium redis-server; start Redis on 127.0.0.1:6379'])
  })

  it('stops with the one message, naming what is still missing, when apt-get fails', async () => {
    const { machine, ran } = fakeMachine([bare()], 'apt-update')
    const error = await provision({ machine, log: () => {} }).catch((e: Error) => e)
    expect(kinds(ran)).toEqual(['apt-update'])
    expect(error).toBeInstanceOf(Error)
    const message = (error as Error).message
    expect(message).toMatch(/^npm test cannot start/)
    expect(message).toContain('Chromium is not at /usr/bin/chromium')
    expect(message).toContain('Redis is not answering')
    expect(message).toContain('apt-get failed (apt-update failed)')
  })

  it('fails when a step reported success but the service still does not answer', async () => {
    const stillDown = ready()
    stillDown.redis = { ...stillDown.redis!, state: 'down' }
    const { machine } = fakeMachine([stillDown, stillDown])
    await expect(provision({ machine, log: () => {} })).rejects.toThrow(/Still to do after provisioning: start Redis/)
  })
})

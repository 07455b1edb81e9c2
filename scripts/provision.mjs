// What the test suites need from the machine, provided before any stage runs: Chromium (Debian's
// package, never a downloaded browser build) for the end-to-end tests, HAProxy (Debian's package)
// for the scale stage's balancer, a PostgreSQL answering on
// 127.0.0.1:5432 as user postgres without a password, a Redis on 127.0.0.1:6379, and the test
// databases, and for the integration-replica stage a streaming replica of that PostgreSQL on
// 127.0.0.1:5433 (its data directory in .cache/pg-replica). Used by `npm test` (scripts/test.mjs)
// and CI (.ci/run runs `npm install` and `npm test`).
//
// On Debian/Ubuntu as root it installs what is absent with apt (`apt-get update` only when something
// is to be installed) and starts what is installed but down. Anywhere else (not root, no apt, another
// OS, apt unreachable) it changes nothing and stops with one message naming what is missing and the
// command that installs or starts each. Services the user points to (TEST_DATABASE_URL,
// TEST_REDIS_URL, TEST_REPLICA_URL, CHROMIUM_PATH, HAPROXY_PATH) are only checked, never installed or started.
//
// The decisions (facts → steps or problems) are pure functions, tested with made-up facts in
// tests/unit/provision.test.ts; probing and running commands are passed in.
import { setTimeout as sleep } from 'node:timers/promises'
import { spawnSync } from 'node:child_process'
import { accessSync, chownSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

export const DEFAULT_CHROMIUM = '/usr/bin/chromium'
export const DEFAULT_HAPROXY = '/usr/sbin/haproxy'
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/qd_test'
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379'
/** Databases the suites use on the default server: `test` and the one scripts/test.mjs names. */
export const DEFAULT_DATABASES = ['test', 'qd_test']
/** The replica of the test PostgreSQL for the integration-replica stage: its port, and its data directory under the project's .cache/. */
export const DEFAULT_REPLICA_PORT = 5433
export const REPLICA_DIR = path.join('.cache', 'pg-replica')
const REDIS_START = ['redis-server', '--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no']

/** What each service is for, in the message. */
const PURPOSE = {
  chromium: 'the end-to-end tests',
  haproxy: 'the scale stage’s load balancer',
  postgres: 'the Postgres-backed unit, integration and fault suites',
  redis: 'the rate-limit and fault suites',
  replica: 'the integration-replica stage',
}

/**
 * @typedef {'ok' | 'down' | 'auth' | 'error'} ServiceState
 * @typedef {{
 *   os: { platform: string, debianLike: boolean, apt: boolean, root: boolean, aptError?: string },
 *   chromium?: { path: string, override: boolean, present: boolean },
 *   haproxy?: { path: string, override: boolean, present: boolean },
 *   postgres?: { url: string, override: boolean, state: ServiceState, detail?: string, installed: boolean, version?: string },
 *   redis?: { url: string, override: boolean, state: ServiceState, detail?: string, installed: boolean },
 *   replica?: ReplicaFacts,
 * }} Facts
 * @typedef {{
 *   url: string, override: boolean,
 *   state: 'ok' | 'not-streaming' | 'not-replica' | 'down' | 'error', detail?: string,
 *   dir: string, dirState: 'absent' | 'valid' | 'broken',
 *   version?: string, binDir?: string,
 *   primary: { host: string, port: number, local: boolean },
 *   replication: 'ok' | 'refused' | 'error',
 * }} ReplicaFacts
 * @typedef {{ kind: 'apt-update' } | { kind: 'apt-install', packages: string[] } | { kind: 'trust-postgres-loopback' }
 *   | { kind: 'start-postgres', version?: string } | { kind: 'start-redis' } | { kind: 'create-databases', url: string, names: string[] }
 *   | { kind: 'trust-replication-loopback', version: string } | { kind: 'stop-replica', dir: string, binDir: string }
 *   | { kind: 'make-replica', dir: string, binDir: string, primary: { host: string, port: number } }
 *   | { kind: 'start-replica', dir: string, binDir: string, port: number, url: string, primary: { host: string, port: number } }} Step
 * @typedef {{ what: string, commands: string[] }} Problem
 */

const hostPort = (url, port) => {
  const u = new URL(url)
  return `${u.hostname}:${u.port || port}`
}

/** Commands that install and start each service by hand, for the message. */
function manualCommands(facts, service) {
  const sudo = facts.os.root ? '' : 'sudo '
  if (facts.os.debianLike) {
    switch (service) {
      case 'chromium':
        return [`${sudo}apt-get update && ${sudo}apt-get install -y chromium`]
      case 'haproxy':
        return [`${sudo}apt-get update && ${sudo}apt-get install -y haproxy`]
      case 'postgres':
        return facts.postgres?.installed
          ? [`${sudo}pg_ctlcluster --skip-systemctl-redirect ${facts.postgres.version ?? '<version>'} main start`]
          : [
              `${sudo}apt-get update && ${sudo}apt-get install -y postgresql`,
              `${sudo}pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | sort -V | tail -n1) main start`,
            ]
      case 'redis':
        return facts.redis?.installed ? [redisStartCommand()] : [`${sudo}apt-get update && ${sudo}apt-get install -y redis-server`, redisStartCommand()]
    }
  }
  if (facts.os.platform === 'darwin') {
    switch (service) {
      case 'chromium':
        return ['brew install --cask chromium', 'export CHROMIUM_PATH="/Applications/Chromium.app/Contents/MacOS/Chromium"']
      case 'haproxy':
        return ['brew install haproxy', 'export HAPROXY_PATH="$(brew --prefix)/sbin/haproxy"']
      case 'postgres':
        return ['brew install postgresql@17 && brew services start postgresql@17', 'createuser -s postgres']
      case 'redis':
        return ['brew install redis && brew services start redis']
    }
  }
  switch (service) {
    case 'chromium':
      return ['install Chromium with the system package manager, then export CHROMIUM_PATH=/path/to/chromium']
    case 'haproxy':
      return ['install HAProxy (2.2 or later) with the system package manager, then export HAPROXY_PATH=/path/to/haproxy']
    case 'postgres':
      return [
        'install PostgreSQL, start it on 127.0.0.1:5432 with a superuser postgres that needs no password from 127.0.0.1, or export TEST_DATABASE_URL=postgres://user:password@host:port/qd_test',
      ]
    case 'redis':
      return ['install Redis and start it on 127.0.0.1:6379, or export TEST_REDIS_URL=redis://host:port']
  }
  return []
}

const redisStartCommand = () => REDIS_START.map((a) => (a === '' ? '""' : a)).join(' ')

/**
 * The steps that make the machine ready, or the problems that stop provisioning. Pure: facts in,
 * decisions out. When there is any problem there are no steps: nothing is half done.
 * @param {Facts} facts
 * @returns {{ steps: Step[], problems: Problem[] }}
 */
export function planProvisioning(facts) {
  const { os } = facts
  const canApt = os.root && os.apt && os.debianLike && !os.aptError
  const why = !os.debianLike
    ? `this is not Debian or Ubuntu (${os.platform})`
    : !os.apt
      ? 'apt-get is not available'
      : !os.root
        ? 'not running as root'
        : `apt-get failed (${os.aptError}); is the package mirror reachable?`
  /** @type {string[]} */ const packages = []
  /** @type {Step[]} */ const after = []
  /** @type {Problem[]} */ const problems = []

  const { chromium, haproxy, postgres, redis } = facts
  // A program from one Debian package, at a path the user may override: installed when absent.
  const program = (service, name, variable) => {
    const found = facts[service]
    if (!found || found.present) return
    if (found.override)
      problems.push({
        what: `${name} is not at ${variable}=${found.path} (for ${PURPOSE[service]}).`,
        commands: [
          `export ${variable}=/path/to/${service}`,
          ...(os.debianLike ? [`or unset ${variable} and let npm test install Debian’s ${service} (as root)`] : []),
        ],
      })
    else if (canApt) packages.push(service)
    else
      problems.push({
        what: `${name} is not at ${found.path} (for ${PURPOSE[service]}), and it cannot be installed here: ${why}.`,
        commands: manualCommands(facts, service),
      })
  }
  program('chromium', 'Chromium', 'CHROMIUM_PATH')
  program('haproxy', 'HAProxy', 'HAPROXY_PATH')

  if (postgres && postgres.state !== 'ok') {
    const at = hostPort(postgres.url, 5432)
    if (postgres.override) {
      problems.push({
        what:
          postgres.state === 'auth'
            ? `The PostgreSQL at TEST_DATABASE_URL (${at}) refused the credentials: ${postgres.detail ?? 'authentication failed'}.`
            : `The PostgreSQL at TEST_DATABASE_URL (${at}) does not answer: ${postgres.detail ?? postgres.state}.`,
        commands: ['start that server, fix TEST_DATABASE_URL, or unset it to use a local PostgreSQL on 127.0.0.1:5432'],
      })
    } else if (postgres.state === 'auth') {
      // A cluster this script did not install: its access rules are the owner's to change.
      problems.push({
        what: `PostgreSQL on ${at} answers but refuses user postgres without a password (${postgres.detail ?? 'authentication failed'}); the tests connect as postgres@127.0.0.1 with no password.`,
        commands: [
          'allow it for loopback only: add `host all postgres 127.0.0.1/32 trust` and `host all postgres ::1/128 trust` at the top of pg_hba.conf, then reload PostgreSQL',
          'or export TEST_DATABASE_URL=postgres://postgres:<password>@127.0.0.1:5432/qd_test',
        ],
      })
    } else if (postgres.state === 'error') {
      problems.push({
        what: `PostgreSQL on ${at} answered with an error: ${postgres.detail ?? 'unknown'}.`,
        commands: ['check the server’s log, or export TEST_DATABASE_URL to use another server'],
      })
    } else if (postgres.installed && os.root) {
      after.push({ kind: 'start-postgres', version: postgres.version })
    } else if (!postgres.installed && canApt) {
      packages.push('postgresql')
      after.push({ kind: 'start-postgres' }, { kind: 'trust-postgres-loopback' })
    } else {
      problems.push({
        what: postgres.installed
          ? `PostgreSQL is installed but not answering on ${at} (for ${PURPOSE.postgres}), and it cannot be started here: not running as root.`
          : `PostgreSQL is not answering on ${at} and is not installed (for ${PURPOSE.postgres}); it cannot be installed here: ${why}.`,
        commands: manualCommands(facts, 'postgres'),
      })
    }
  }

  if (redis && redis.state !== 'ok') {
    const at = hostPort(redis.url, 6379)
    if (redis.override)
      problems.push({
        what: `The Redis at TEST_REDIS_URL (${at}) does not answer: ${redis.detail ?? redis.state}.`,
        commands: ['start that server, fix TEST_REDIS_URL, or unset it to use a local Redis on 127.0.0.1:6379'],
      })
    else if (redis.state === 'auth' || redis.state === 'error')
      problems.push({
        what: `Redis on ${at} answered with an error: ${redis.detail ?? redis.state}.`,
        commands: ['check that server, or export TEST_REDIS_URL to use another one'],
      })
    // Starting an installed redis-server needs no root.
    else if (redis.installed) after.push({ kind: 'start-redis' })
    else if (canApt) {
      packages.push('redis-server')
      after.push({ kind: 'start-redis' })
    } else
      problems.push({
        what: `Redis is not answering on ${at} and is not installed (for ${PURPOSE.redis}); it cannot be installed here: ${why}.`,
        commands: manualCommands(facts, 'redis'),
      })
  }

  /** @type {Step[]} */ const replicaSteps = []
  if (facts.replica) planReplica(facts, replicaSteps, problems)

  if (problems.length) return { steps: [], problems }
  /** @type {Step[]} */ const steps = packages.length ? [{ kind: 'apt-update' }, { kind: 'apt-install', packages }] : []
  // Trust is set before the cluster's first start, so there is no reload.
  steps.push(...after.sort((a, b) => order(a) - order(b)))
  if (postgres)
    steps.push({ kind: 'create-databases', url: postgres.url, names: postgres.override ? [new URL(postgres.url).pathname.slice(1)] : DEFAULT_DATABASES })
  // The replica last: it copies the primary once that answers and holds the test databases.
  steps.push(...replicaSteps)
  return { steps, problems: [] }
}

/**
 * The replica of the test PostgreSQL: nothing when one streams on its port; else, as root on a
 * machine with the primary's server binaries, (re)make it from a base backup and start it. A
 * data directory that is valid is started as it is; one that is broken, or a replica that runs
 * but does not stream, is made again. Replication over loopback is trusted only on the local
 * cluster (TEST_DATABASE_URL unset), and only when it is refused.
 * @param {Facts} facts @param {Step[]} steps @param {Problem[]} problems
 */
function planReplica(facts, steps, problems) {
  const replica = /** @type {ReplicaFacts} */ (facts.replica)
  if (replica.state === 'ok') return
  const at = hostPort(replica.url, DEFAULT_REPLICA_PORT)
  if (replica.override) {
    problems.push({
      what: `The replica at TEST_REPLICA_URL (${at}) ${replicaTrouble(replica)}.`,
      commands: ['start that replica, fix TEST_REPLICA_URL, or unset it to let npm test make one in .cache/pg-replica (as root on Debian or Ubuntu)'],
    })
    return
  }
  if (replica.state === 'not-replica' || replica.state === 'error') {
    problems.push({
      what: `${at} ${replicaTrouble(replica)}; ${PURPOSE.replica} needs a streaming replica of the test PostgreSQL there.`,
      commands: [
        `stop what listens on ${at}, or export TEST_REPLICA_URL=postgres://postgres@127.0.0.1:<port>/${new URL(replica.url).pathname.slice(1)} naming a streaming replica of the test PostgreSQL`,
      ],
    })
    return
  }
  const why = !facts.os.root
    ? 'not running as root'
    : !replica.binDir
      ? `no PostgreSQL ${replica.version ?? ''} server binaries at /usr/lib/postgresql/${replica.version ?? '<version>'}/bin`.replace('  ', ' ')
      : replica.replication === 'refused' && !replica.primary.local
        ? `the PostgreSQL at TEST_DATABASE_URL (${replica.primary.host}:${replica.primary.port}) refuses replication connections for user postgres`
        : replica.replication === 'error' && facts.postgres?.state === 'ok'
          ? 'the test PostgreSQL did not answer a replication connection'
          : null
  if (why) {
    problems.push({
      what: `No streaming replica answers on ${at} (for ${PURPOSE.replica}), and it cannot be made here: ${why}.`,
      commands: replicaCommands(facts),
    })
    return
  }
  const binDir = /** @type {string} */ (replica.binDir)
  const { dir, primary } = replica
  if (replica.replication === 'refused') steps.push({ kind: 'trust-replication-loopback', version: /** @type {string} */ (replica.version) })
  if (replica.state === 'not-streaming') steps.push({ kind: 'stop-replica', dir, binDir })
  if (replica.state === 'not-streaming' || replica.dirState !== 'valid')
    steps.push({ kind: 'make-replica', dir, binDir, primary: { host: primary.host, port: primary.port } })
  steps.push({
    kind: 'start-replica',
    dir,
    binDir,
    port: Number(new URL(replica.url).port || DEFAULT_REPLICA_PORT),
    url: replica.url,
    primary: { host: primary.host, port: primary.port },
  })
}

/** @param {ReplicaFacts} replica */
function replicaTrouble(replica) {
  switch (replica.state) {
    case 'not-streaming':
      return 'is a replica that does not stream from its primary'
    case 'not-replica':
      return 'is answered by a PostgreSQL that is not in recovery (not a replica)'
    case 'error':
      return `answered with an error: ${replica.detail ?? 'unknown'}`
    default:
      return `does not answer: ${replica.detail ?? replica.state}`
  }
}

/** The commands that make the replica by hand, for the message. */
function replicaCommands(facts) {
  const replica = /** @type {ReplicaFacts} */ (facts.replica)
  const sudo = facts.os.root ? '' : 'sudo '
  const { host, port } = replica.primary
  const replicaPort = new URL(replica.url).port || DEFAULT_REPLICA_PORT
  const alternative = `or export TEST_REPLICA_URL=postgres://postgres@<host>:<port>/${new URL(replica.url).pathname.slice(1)} naming a streaming replica of the test PostgreSQL`
  if (!facts.os.debianLike || !replica.version)
    return [
      `make a streaming replica of the test PostgreSQL and start it on 127.0.0.1:${replicaPort}: pg_basebackup -h ${host} -p ${port} -U postgres -D ${replica.dir} -R -X stream, then pg_ctl -D ${replica.dir} -o "-p ${replicaPort}" start`,
      alternative,
    ]
  const bin = `/usr/lib/postgresql/${replica.version}/bin`
  return [
    `${sudo}npm test -- integration-replica   (as root it trusts replication from 127.0.0.1 for postgres, makes the replica in ${replica.dir} and starts it), or by hand:`,
    `${sudo}sed -i '1i host replication postgres 127.0.0.1/32 trust' /etc/postgresql/${replica.version}/main/pg_hba.conf && ${sudo}pg_ctlcluster ${replica.version} main reload`,
    `${sudo}install -d -o postgres -g postgres -m 700 ${replica.dir} && ${sudo}runuser -u postgres -- ${bin}/pg_basebackup -h ${host} -p ${port} -U postgres -D ${replica.dir} -R -X stream -c fast`,
    `write ${replica.dir}/postgresql.conf (port = ${replicaPort}, listen_addresses = '127.0.0.1', hot_standby = on) and ${replica.dir}/pg_hba.conf (host all all 127.0.0.1/32 trust), then: ${sudo}runuser -u postgres -- ${bin}/pg_ctl -D ${replica.dir} -l ${replica.dir}/replica.log -w start`,
    alternative,
  ]
}

const ORDER = ['trust-postgres-loopback', 'start-postgres', 'start-redis']
const order = (step) => ORDER.indexOf(step.kind)

/** The one message shown when provisioning cannot go on. */
export function formatProblems(problems) {
  const lines = ['npm test cannot start: this machine lacks what the tests need, and it cannot be provided here.', '']
  for (const p of problems) {
    lines.push(`- ${p.what}`)
    for (const c of p.commands) lines.push(`    ${c}`)
  }
  lines.push('', 'Then run npm test again. To use services of your own, set TEST_DATABASE_URL, TEST_REDIS_URL, CHROMIUM_PATH or HAPROXY_PATH.')
  return lines.join('\n')
}

/**
 * Which services the selected stages need (scripts/test.mjs stage names; all when none is selected).
 * `unit` needs none: the unit project runs its database suites on PGlite. `node-lines` runs the
 * integration project too, on some lines. `scale` runs three instances behind HAProxy on one
 * Postgres and one Redis. (The Node lines come from the npm registry, which `npm install` already needs.)
 */
export function needsOf(stageNames) {
  const all = stageNames.length === 0
  const has = (...names) => all || names.some((n) => stageNames.includes(n))
  return {
    chromium: has('e2e'),
    haproxy: has('scale'),
    postgres: has('unit-postgres', 'unit-neon', 'integration', 'integration-postgres', 'integration-replica', 'scale', 'fault', 'node-lines'),
    redis: has('integration', 'scale', 'fault', 'node-lines'),
    replica: has('integration-replica'),
  }
}

// ---------------------------------------------------------------------------------------------
// The machine: probes and commands.

function osFacts() {
  let release = ''
  try {
    release = readFileSync('/etc/os-release', 'utf8')
  } catch {}
  const field = (k) => new RegExp(`^${k}="?([^"\\n]*)"?$`, 'm').exec(release)?.[1] ?? ''
  const ids = `${field('ID')} ${field('ID_LIKE')}`
  return {
    platform: process.platform,
    debianLike: process.platform === 'linux' && /\b(debian|ubuntu)\b/.test(ids),
    apt: existsSync('/usr/bin/apt-get'),
    root: process.getuid?.() === 0,
  }
}

function executable(file) {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const onPath = (name) => (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && executable(path.join(dir, name)))

/** Installed PostgreSQL clusters named main, newest version last. */
function postgresVersions() {
  try {
    return readdirSync('/etc/postgresql')
      .filter((v) => existsSync(`/etc/postgresql/${v}/main/postgresql.conf`))
      .sort((a, b) => Number(a) - Number(b))
  } catch {
    return []
  }
}

async function probePostgres(url) {
  const { default: pg } = await import('pg')
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return { state: 'ok' }
  } catch (error) {
    const code = error?.code
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || /timeout/i.test(error?.message ?? ''))
      return { state: 'down', detail: code ?? error.message }
    if (code === '28P01' || code === '28000' || /password/i.test(error?.message ?? '')) return { state: 'auth', detail: error.message }
    return { state: 'error', detail: error?.message ?? String(error) }
  } finally {
    await client.end().catch(() => {})
  }
}

/** PING over a plain socket (AUTH first when the URL has a password). */
function probeRedis(url) {
  const u = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 6379) })
    const done = (result) => {
      socket.destroy()
      resolve(result)
    }
    socket.setTimeout(3000, () => done({ state: 'down', detail: 'timeout' }))
    socket.on('error', (error) => done({ state: 'down', detail: error.code ?? error.message }))
    let buffer = ''
    socket.on('data', (d) => {
      buffer += d
      if (/\+PONG\r\n$/.test(buffer)) done({ state: 'ok' })
      else if (/^-/m.test(buffer)) done({ state: /NOAUTH|WRONGPASS/.test(buffer) ? 'auth' : 'error', detail: buffer.trim() })
    })
    socket.on('connect', () => {
      const password = decodeURIComponent(u.password)
      const user = decodeURIComponent(u.username)
      if (password) socket.write(user ? `AUTH ${user} ${password}\r\n` : `AUTH ${password}\r\n`)
      socket.write('PING\r\n')
    })
  })
}

/** The default replica's URL: the test database's name on 127.0.0.1:DEFAULT_REPLICA_PORT; TEST_REPLICA_URL when set. */
export function replicaUrl(env = process.env) {
  if (env.TEST_REPLICA_URL) return env.TEST_REPLICA_URL
  const u = new URL(env.TEST_DATABASE_URL || DEFAULT_DATABASE_URL)
  u.hostname = '127.0.0.1'
  u.port = String(DEFAULT_REPLICA_PORT)
  return u.toString()
}

/**
 * Whether the server at `url` is a replica that streams from its primary: in recovery, with a WAL
 * receiver streaming. A replica that has just started gets a few seconds to connect.
 */
export async function probeReplica(url, { waitMs = 5000 } = {}) {
  const { default: pg } = await import('pg')
  const deadline = Date.now() + waitMs
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
    let result
    try {
      await client.connect()
      const { rows } = await client.query(
        'SELECT pg_is_in_recovery() AS recovery, (SELECT status FROM pg_stat_wal_receiver LIMIT 1) AS status, (SELECT count(*)::int FROM pg_stat_wal_receiver) AS receivers',
      )
      const r = rows[0]
      // The status is hidden from roles without pg_read_all_stats; a receiver that is there then counts as streaming.
      result = !r.recovery
        ? { state: 'not-replica' }
        : r.status === 'streaming' || (r.status === null && r.receivers > 0)
          ? { state: 'ok' }
          : { state: 'not-streaming', detail: r.status ?? 'no WAL receiver' }
    } catch (error) {
      const code = error?.code
      result =
        code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === '57P03' || /timeout/i.test(error?.message ?? '')
          ? { state: 'down', detail: code ?? error.message }
          : { state: 'error', detail: error?.message ?? String(error) }
    } finally {
      await client.end().catch(() => {})
    }
    if (result.state !== 'not-streaming' || Date.now() >= deadline) return result
    await sleep(500)
  }
}

/** Whether the primary at `url` lets user postgres in for replication (a physical replication connection). */
async function probeReplicationAccess(url) {
  const { default: pg } = await import('pg')
  const u = new URL(url)
  const client = new pg.Client({
    host: u.hostname,
    port: Number(u.port || 5432),
    user: 'postgres',
    database: 'postgres',
    replication: 'true',
    connectionTimeoutMillis: 3000,
  })
  try {
    await client.connect()
    await client.query('IDENTIFY_SYSTEM')
    return 'ok'
  } catch (error) {
    return error?.code === '28000' || /pg_hba\.conf/.test(error?.message ?? '') ? 'refused' : 'error'
  } finally {
    await client.end().catch(() => {})
  }
}

/** The major version of the server at `url` (the replica's server binaries must be the same major). */
async function serverMajor(url) {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    const { rows } = await client.query("SELECT current_setting('server_version_num')::int AS v")
    return String(Math.floor(rows[0].v / 10000))
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => {})
  }
}

/** A replica data directory made by this script: the right major, a standby with its primary's address, our own configuration. */
function replicaDirState(dir, version) {
  if (!existsSync(dir)) return 'absent'
  try {
    const valid =
      readFileSync(path.join(dir, 'PG_VERSION'), 'utf8').trim() === version &&
      existsSync(path.join(dir, 'standby.signal')) &&
      readFileSync(path.join(dir, 'postgresql.auto.conf'), 'utf8').includes('primary_conninfo') &&
      readFileSync(path.join(dir, 'postgresql.conf'), 'utf8').includes(REPLICA_CONF_MARK)
    return valid ? 'valid' : 'broken'
  } catch {
    return 'broken'
  }
}

async function probeReplicaFacts(env) {
  const url = replicaUrl(env)
  const primaryUrl = env.TEST_DATABASE_URL || DEFAULT_DATABASE_URL
  const p = new URL(primaryUrl)
  const primary = { host: p.hostname, port: Number(p.port || 5432), local: !env.TEST_DATABASE_URL }
  const state = await probeReplica(url)
  const override = !!env.TEST_REPLICA_URL
  const dir = path.resolve(REPLICA_DIR)
  if (state.state === 'ok' || override) return { url, override, ...state, dir, dirState: 'absent', primary, replication: 'ok' }
  const version = (await serverMajor(primaryUrl)) ?? (primary.local ? postgresVersions().at(-1) : undefined)
  const binDir = version && existsSync(`/usr/lib/postgresql/${version}/bin/pg_ctl`) ? `/usr/lib/postgresql/${version}/bin` : undefined
  return {
    url,
    override,
    ...state,
    dir,
    dirState: version ? replicaDirState(dir, version) : 'broken',
    version,
    binDir,
    primary,
    replication: await probeReplicationAccess(primaryUrl),
  }
}

/** Everything planProvisioning needs to know about this machine, for the services `needs` names. */
export async function probeMachine(env = process.env, needs = needsOf([])) {
  /** @type {Facts} */
  const facts = { os: osFacts() }
  if (needs.chromium) {
    const p = env.CHROMIUM_PATH || DEFAULT_CHROMIUM
    facts.chromium = { path: p, override: !!env.CHROMIUM_PATH, present: executable(p) }
  }
  if (needs.haproxy) {
    const p = env.HAPROXY_PATH || DEFAULT_HAPROXY
    facts.haproxy = { path: p, override: !!env.HAPROXY_PATH, present: executable(p) }
  }
  if (needs.postgres) {
    const url = env.TEST_DATABASE_URL || DEFAULT_DATABASE_URL
    const versions = postgresVersions()
    facts.postgres = {
      url,
      override: !!env.TEST_DATABASE_URL,
      ...(await probePostgres(url)),
      installed: versions.length > 0 && existsSync('/usr/bin/pg_ctlcluster'),
      version: versions.at(-1),
    }
  }
  if (needs.redis) {
    const url = env.TEST_REDIS_URL || DEFAULT_REDIS_URL
    facts.redis = { url, override: !!env.TEST_REDIS_URL, ...(await probeRedis(url)), installed: onPath('redis-server') }
  }
  if (needs.replica) facts.replica = await probeReplicaFacts(env)
  return facts
}

function run(cmd, args, { env } = {}) {
  console.log(`[provision] ${[cmd, ...args].map((a) => (a === '' ? '""' : a)).join(' ')}`)
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`})`)
}

async function waitFor(probe, what) {
  for (let i = 0; i < 60; i++) {
    if ((await probe()).state === 'ok') return
    await sleep(500)
  }
  throw new Error(`${what} did not answer within 30 s`)
}

/** Local loopback access for user postgres on a cluster this script installed (never an existing one). */
function trustLoopback(version) {
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`
  const lines =
    "# Added by the project's test provisioning (scripts/provision.mjs): the test suites connect as postgres over loopback.\nhost all postgres 127.0.0.1/32 trust\nhost all postgres ::1/128 trust\n"
  const current = readFileSync(hba, 'utf8')
  if (!current.includes('scripts/provision.mjs')) writeFileSync(hba, lines + current)
}

const REPLICA_CONF_MARK = '# The replica of the test PostgreSQL (scripts/provision.mjs, make-replica).'
const REPLICATION_HBA_MARK = "# Added by the project's test provisioning for the integration-replica stage: replication over loopback."

/** Replication connections from 127.0.0.1 for user postgres, without a password, on the local cluster; then a reload (no restart). */
function trustReplication(version) {
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`
  const current = readFileSync(hba, 'utf8')
  if (!current.includes(REPLICATION_HBA_MARK)) writeFileSync(hba, `${REPLICATION_HBA_MARK}\nhost replication postgres 127.0.0.1/32 trust\n${current}`)
  run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'reload'])
}

/** `args` as the postgres OS user when root (the server refuses to run as root), else as this user. */
const asServerUser = (args) => (process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...args] : args)

/** Whether pg_ctl sees a server running on `dir`. */
function replicaRunning(dir, binDir) {
  const args = asServerUser([`${binDir}/pg_ctl`, 'status', '-D', dir])
  return spawnSync(args[0], args.slice(1)).status === 0
}

export function stopReplica(dir, binDir) {
  if (!replicaRunning(dir, binDir)) return
  const args = asServerUser([`${binDir}/pg_ctl`, 'stop', '-D', dir, '-m', 'fast', '-w'])
  run(args[0], args.slice(1))
}

export function startReplica(dir, binDir, port) {
  if (replicaRunning(dir, binDir)) return
  const args = asServerUser([`${binDir}/pg_ctl`, 'start', '-D', dir, '-l', path.join(dir, 'replica.log'), '-w', '-t', '60', '-o', `-p ${port}`])
  run(args[0], args.slice(1))
}

/** Settings a hot standby may not have below its primary's (else it refuses to start). */
const STANDBY_MINIMUMS = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction']

/**
 * A new replica in `dir` (removed first when it is there): a base backup of the primary with its
 * standby settings (-R), streaming the WAL it needs (-X stream), and a configuration of its own
 * (a Debian cluster keeps its configuration outside the data directory, so the backup has none).
 */
async function makeReplica({ dir, binDir, primary }) {
  if (!dir.split(path.sep).includes('.cache')) throw new Error(`refusing to make a replica outside .cache/: ${dir}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(path.dirname(dir), { recursive: true })
  mkdirSync(dir, { mode: 0o700 })
  const root = process.getuid?.() === 0
  const owner = root ? statSync('/var/lib/postgresql') : null
  if (owner) chownSync(dir, owner.uid, owner.gid)
  const backup = asServerUser([
    `${binDir}/pg_basebackup`,
    '-h',
    primary.host,
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    dir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ])
  run(backup[0], backup.slice(1))
  const { default: pg } = await import('pg')
  const client = new pg.Client({ host: primary.host, port: primary.port, user: 'postgres', database: 'postgres' })
  await client.connect()
  const { rows } = await client.query('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [STANDBY_MINIMUMS]).finally(() => client.end())
  const conf = [
    REPLICA_CONF_MARK,
    "listen_addresses = '127.0.0.1'",
    // Its socket would clash with other clusters' in a shared directory; the tests connect over TCP.
    "unix_socket_directories = ''",
    'hot_standby = on',
    'shared_buffers = 32MB',
    ...rows.map((r) => `${r.name} = ${r.setting}`),
  ]
  const files = {
    'postgresql.conf': `${conf.join('\n')}\n`,
    'pg_hba.conf':
      '# The replica of the test PostgreSQL: loopback only, as the primary is for the tests.\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n',
  }
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(dir, name)
    writeFileSync(file, text, { mode: 0o600 })
    if (owner) chownSync(file, owner.uid, owner.gid)
  }
}

/** Runs one step on this machine. */
export async function runStep(step) {
  const apt = { DEBIAN_FRONTEND: 'noninteractive' }
  switch (step.kind) {
    case 'apt-update':
      return run('apt-get', ['update', '-qq'], { env: apt })
    case 'apt-install':
      return run('apt-get', ['install', '-y', '-qq', ...step.packages], { env: apt })
    case 'trust-postgres-loopback': {
      const version = postgresVersions().at(-1)
      if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql after installing postgresql')
      trustLoopback(version)
      // The package may have started the cluster already: take the new rule into use.
      if (spawnSync('pg_ctlcluster', [version, 'main', 'status']).status === 0) run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'reload'])
      return
    }
    case 'start-postgres': {
      const version = step.version ?? postgresVersions().at(-1)
      if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql')
      if ((await probePostgres(DEFAULT_DATABASE_URL)).state !== 'down') return // the package's own start did it
      run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'])
      return waitFor(() => probePostgres(DEFAULT_DATABASE_URL).then((r) => (r.state === 'auth' ? { state: 'ok' } : r)), 'PostgreSQL')
    }
    case 'start-redis':
      run(REDIS_START[0], REDIS_START.slice(1))
      return waitFor(() => probeRedis(DEFAULT_REDIS_URL), 'Redis')
    case 'trust-replication-loopback':
      return trustReplication(step.version)
    case 'stop-replica':
      return stopReplica(step.dir, step.binDir)
    case 'make-replica':
      return makeReplica(step)
    case 'start-replica': {
      startReplica(step.dir, step.binDir, step.port)
      if ((await probeReplica(step.url, { waitMs: 20_000 })).state === 'ok') return
      // Started but not streaming: the WAL it needs is gone from the primary (it was stopped too
      // long; there is no replication slot, so that the primary never keeps WAL for it). Made again.
      console.log(`[provision] the replica in ${step.dir} does not stream from its primary; making it again`)
      stopReplica(step.dir, step.binDir)
      await makeReplica(step)
      startReplica(step.dir, step.binDir, step.port)
      const again = await probeReplica(step.url, { waitMs: 30_000 })
      if (again.state !== 'ok')
        throw new Error(`the replica in ${step.dir} did not stream from its primary (${again.detail ?? again.state}); see ${step.dir}/replica.log`)
      return
    }
    case 'create-databases': {
      const { ensureDatabase } = await import('./ensure-database.mjs')
      for (const name of step.names) {
        const u = new URL(step.url)
        u.pathname = `/${name}`
        await ensureDatabase(u.toString())
      }
      return
    }
  }
}

/**
 * Probes, plans, runs the steps and checks again. Resolves when the machine is ready; rejects with
 * the one message to show otherwise. `machine` replaces the real probes and commands in tests.
 */
export async function provision({ env = process.env, needs = needsOf([]), machine = { probe: probeMachine, runStep }, log = console.log } = {}) {
  const facts = await machine.probe(env, needs)
  const { steps, problems } = planProvisioning(facts)
  if (problems.length) throw new Error(formatProblems(problems))
  const changes = steps.filter((s) => s.kind !== 'create-databases')
  if (changes.length) log(`[provision] ${changes.map(describeStep).join('; ')}`)
  for (const step of steps) {
    try {
      await machine.runStep(step)
    } catch (error) {
      // apt unreachable, a start that failed: the same one message, with what is still missing.
      const reason = error instanceof Error ? error.message : String(error)
      const again = planProvisioning({ ...(await machine.probe(env, needs)), os: { ...facts.os, aptError: reason } })
      throw new Error(
        `${formatProblems(again.problems.length ? again.problems : [{ what: `Provisioning failed: ${reason}`, commands: [] }])}\n(provisioning stopped: ${reason})`,
      )
    }
  }
  if (changes.length) {
    const after = planProvisioning(await machine.probe(env, needs))
    const left = after.steps.filter((s) => s.kind !== 'create-databases')
    if (after.problems.length || left.length)
      throw new Error(
        formatProblems(
          after.problems.length ? after.problems : left.map((s) => ({ what: `Still to do after provisioning: ${describeStep(s)}`, commands: [] })),
        ),
      )
  }
  return { steps }
}

export function describeStep(step) {
  switch (step.kind) {
    case 'apt-update':
      return 'apt-get update'
    case 'apt-install':
      return `apt-get install ${step.packages.join(' ')}`
    case 'trust-postgres-loopback':
      return 'let user postgres in over loopback without a password (the cluster just installed)'
    case 'start-postgres':
      return `start PostgreSQL${step.version ? ` ${step.version}` : ''}`
    case 'start-redis':
      return 'start Redis on 127.0.0.1:6379'
    case 'create-databases':
      return `create databases ${step.names.join(', ')}`
    case 'trust-replication-loopback':
      return 'let user postgres replicate over loopback without a password (pg_hba.conf, then a reload)'
    case 'stop-replica':
      return `stop the replica in ${step.dir}`
    case 'make-replica':
      return `make a replica of ${step.primary.host}:${step.primary.port} in ${step.dir} (pg_basebackup)`
    case 'start-replica':
      return `start the replica on 127.0.0.1:${step.port}`
  }
}

// `node scripts/provision.mjs [stage…]`: the same, on its own.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  provision({ needs: needsOf(process.argv.slice(2)) }).then(
    () => console.log('[provision] ready'),
    (error) => {
      console.error(error instanceof Error ? error.message : error)
      process.exit(1)
    },
  )
}

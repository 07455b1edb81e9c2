import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase } from '@/lib/db/client'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, type RunningApp } from '../../test-support/app'
import { loadZones } from '../../test-support/dns-zones'
import { startFakeDoh } from '../../test-support/fake-doh'
import { startFakeGhost, type FakeGhost } from '../../test-support/fake-ghost'
import { startFakeMicrosoft, type FakeMicrosoft } from '../../test-support/fake-microsoft'
import { testDatabaseUrl } from '../../test-support/query-database'
import { ensureDatabase } from '@/scripts/ensure-database.mjs'

// Scheduled jobs end to end: the cron routes of the built server (bearer secret, the job run),
// `npm run job` against the same fake Microsoft Graph and Ghost as the office tests, the lock
// across processes, the history in the query application and the job status in /api/health. On
// PGlite by default; on the Postgres at QUERY_TEST_DATABASE_URL when set, where the test process
// also holds a job's advisory lock itself to show that every entry point respects it.

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pgUrl = testDatabaseUrl('jobs_http')
const dir = pgUrl ? undefined : mkdtempSync(path.join(tmpdir(), 'jobs-itest-'))
const driverName = pgUrl ? 'postgres' : 'pglite'
const SECRET = randomBytes(24).toString('hex')
const KEY = randomBytes(16).toString('hex')
const today = () => new Date().toISOString().slice(0, 10)

let ghost: FakeGhost
let ms: FakeMicrosoft
let doh: Awaited<ReturnType<typeof startFakeDoh>>
let app: RunningApp
let jwks: JwksServer
let accessKey: TestKey
let unconfigured: RunningApp
let upstreamEnv: Record<string, string>

const cron = (job: string, authorization?: string, target = () => app) =>
  fetch(`${target().url}/api/cron/${job}`, { headers: authorization === undefined ? {} : { authorization } })
const bearer = (secret = SECRET) => `Bearer ${secret}`
const ghostWrites = () => ghost.upstream.requests.filter((r) => r.method !== 'GET').length
const queryRows = async (dataset: string, filter?: string) => {
  const res = await fetch(`${app.url}/query/api/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url, 'cf-access-jwt-assertion': await signToken(accessKey) },
    body: JSON.stringify({ dataset, dateFrom: today(), dateTo: today(), ...(filter ? { filter } : {}) }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { rows: Array<Record<string, unknown>> }).rows
}

/** `npm run job -- …args` with the fake upstreams; resolves with the exit code and output. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'job', '--', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } as unknown as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => (stdout += d))
    child.stderr!.on('data', (d: Buffer) => (stderr += d))
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

beforeAll(async () => {
  ghost = await startFakeGhost()
  ms = await startFakeMicrosoft()
  doh = await startFakeDoh(loadZones('well-configured', 'providers', 'weak', 'platform'))
  upstreamEnv = {
    GHOST_URL: ghost.url,
    GHOST_CONTENT_API_KEY: ghost.contentKey,
    GHOST_ADMIN_API_KEY: ghost.adminKey,
    ...ms.env(),
    DOH_URL: doh.url,
    // No MTA-STS policy host: that check reports it, the grade still comes out.
    MTA_STS_URL_TEMPLATE: 'http://127.0.0.1:9/{domain}/.well-known/mta-sts.txt',
    PLATFORM_DOMAINS: 'platform.example, febit.eu',
    // Loopback fakes answer in milliseconds; the margin is for a loaded machine.
    UPSTREAM_TIMEOUT_MS: '5000',
    UPSTREAM_RETRIES: '0',
  }
  // A success of message-center-dedupe (daily at 03:45) three days ago: overdue since two days.
  if (pgUrl) await ensureDatabase(pgUrl)
  const database = await createDatabase({ DATABASE_URL: pgUrl, PGLITE_DIR: dir ?? 'memory://' })
  try {
    await database.migrate()
    await database.db.execute(sql`TRUNCATE job_runs, job_runs_rollup, domain_checks, domain_checks_rollup RESTART IDENTITY`)
    const old = new Date(Date.now() - 3 * 86_400_000)
    await database.db.execute(
      sql`INSERT INTO job_runs (started_at, ended_at, job, trigger, outcome, duration_ms) VALUES (${old.toISOString()}, ${old.toISOString()}, 'message-center-dedupe', 'cron', 'succeeded', 10)`,
    )
  } finally {
    await database.close()
  }
  // The query application behind its access policy: with a DATABASE_URL there is no local operator.
  accessKey = await createTestKey('jobs-test')
  jwks = await startJwksServer([accessKey])
  const access = { ACCESS_JWKS_URL: jwks.url, ACCESS_AUDIENCE: TEST_AUDIENCE, ACCESS_ISSUER: TEST_ISSUER }
  app = await startApp({
    ...upstreamEnv,
    ...access,
    CRON_SECRET: SECRET,
    INTERNAL_API_KEYS: KEY,
    NODE_ENV: 'development',
    ...(pgUrl ? { DATABASE_URL: pgUrl } : { PGLITE_DIR: dir }),
  })
  unconfigured = await startApp({ ...upstreamEnv, INTERNAL_API_KEYS: KEY })
}, 120_000)

afterAll(async () => {
  await app?.stop()
  await jwks?.close()
  await unconfigured?.stop()
  await ghost?.close()
  await ms?.close()
  await doh?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe(`cron routes (${driverName})`, () => {
  it('without CRON_SECRET configured refuse every call with 403, whatever the header', async () => {
    for (const authorization of [undefined, bearer(), 'Bearer ', 'Bearer undefined']) {
      const res = await cron('message-center-publish', authorization, () => unconfigured)
      expect(res.status, String(authorization)).toBe(403)
      const body = await res.json()
      expect(body).toEqual({ error: 'Cron routes are disabled: CRON_SECRET is not configured.', requestId: res.headers.get('x-request-id') })
    }
    expect(ghost.upstream.requests).toEqual([])
    expect(ms.upstream.requests).toEqual([])
  })

  it('answer 401 without the bearer secret or with a wrong one, and run nothing', async () => {
    const wrongSameLength = SECRET.replace(/.$/, (c) => (c === '0' ? '1' : '0'))
    for (const authorization of [
      undefined,
      '',
      SECRET,
      `Basic ${Buffer.from(`x:${SECRET}`).toString('base64')}`,
      bearer('nope'),
      bearer(wrongSameLength),
      bearer(`${SECRET}x`),
    ]) {
      const res = await cron('message-center-publish', authorization)
      expect(res.status, String(authorization)).toBe(401)
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/)
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
      const body = await res.json()
      expect(body).toEqual({ error: expect.stringMatching(/^(Missing|Invalid) cron secret/), requestId: res.headers.get('x-request-id') })
    }
    // Any other method: 405 with Allow, in the same shape, before the secret is even read.
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
      const res = await fetch(`${app.url}/api/cron/message-center-publish`, { method, headers: { authorization: bearer() } })
      expect(res.status, method).toBe(405)
      expect(res.headers.get('allow')).toBe('GET')
      if (method !== 'HEAD')
        expect(await res.json()).toEqual({ error: expect.stringContaining('cron routes answer GET'), requestId: res.headers.get('x-request-id') })
    }
    // Unknown jobs are only named to a caller holding the secret.
    expect((await cron('no-such-job')).status).toBe(401)
    expect((await cron('no-such-job', bearer())).status).toBe(404)
    expect(ghost.upstream.requests).toEqual([])
    expect(ms.upstream.requests).toEqual([])
  })

  it('with the secret run the job: a dry run writes nothing, a run publishes, each recorded', async () => {
    const dry = await fetch(`${app.url}/api/cron/message-center-publish?dryRun=true`, { headers: { authorization: bearer() } })
    expect(dry.status).toBe(200)
    expect(await dry.json()).toMatchObject({
      job: 'message-center-publish',
      trigger: 'cron',
      outcome: 'dry-run',
      counts: { scanned: 5, published: 0, pending: 5 },
      error: null,
      recorded: true,
    })
    expect(ghostWrites()).toBe(0)

    const res = await cron('message-center-publish', bearer())
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({
      outcome: 'succeeded',
      counts: { scanned: 5, published: 5, failed: 0 },
      summary: expect.stringMatching(/5 published/),
    })
    expect(ghostWrites()).toBe(5)
  })

  it('run domain-posture and keep the grades as history', async () => {
    const res = await cron('domain-posture', bearer())
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body).toMatchObject({ outcome: 'succeeded', counts: { domains: 2, checked: 2, errors: 0, rows: 22, changes: 0 } })
    const grades = await queryRows('domain_checks', "check_name = 'overall'")
    expect(grades.map((r) => r.domain).sort()).toEqual(['febit.eu', 'platform.example'])
    expect(grades.every((r) => /^[A-F]$/.test(String(r.grade)) && r.changed === false && r.previous_status === null)).toBe(true)
    // The same answers again: a second run changes nothing.
    const again = await (await cron('domain-posture', bearer())).json()
    expect(again.counts.changes).toBe(0)
    expect(await queryRows('domain_checks', 'changed = true')).toEqual([])
    expect((await queryRows('domain_checks', "check_name = 'overall' AND previous_status IS NOT NULL")).length).toBe(2)
  })

  it('run alerts: no saved view has a condition, no posture changed, so nothing is recorded or sent', async () => {
    const res = await cron('alerts', bearer())
    const body = await res.json()
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body).toMatchObject({
      job: 'alerts',
      outcome: 'succeeded',
      counts: { conditions: 0, evaluated: 0, fired: 0, resolved: 0, delivered: 0, pending: 0 },
      summary: expect.stringMatching(/no ALERT_WEBHOOK_URL: recorded only/),
    })
    expect(await queryRows('alerts')).toEqual([])
  })
})

describe(`npm run job (${driverName})`, () => {
  // On PGlite the server owns its directory: the command line gets one of its own.
  const cliDir = pgUrl ? undefined : mkdtempSync(path.join(tmpdir(), 'jobs-cli-'))
  const cliEnv = () => ({ ...upstreamEnv, ...(pgUrl ? { DATABASE_URL: pgUrl } : { PGLITE_DIR: cliDir! }) })
  afterAll(() => {
    if (cliDir) rmSync(cliDir, { recursive: true, force: true })
  })

  it('message-center-publish --dry-run reads the fake Graph and Ghost, prints one line, exits 0 and creates nothing', async () => {
    const writes = ghostWrites()
    const graphCalls = ms.upstream.requests.length
    const { code, stdout, stderr } = await runCli(['message-center-publish', '--dry-run'], cliEnv())
    expect(code, stderr).toBe(0)
    expect(stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^message-center-publish: dry-run in \d+\.\d s: Read 5 messages, 0 published, 5 skipped, 0 failed\. Dry run: nothing was created\.$/,
      ),
    ])
    expect(ms.upstream.requests.length).toBeGreaterThan(graphCalls)
    expect(ghostWrites()).toBe(writes)
  }, 90_000)

  it('exits 2 naming the jobs for an unknown job', async () => {
    const { code, stderr } = await runCli(['no-such-job'], cliEnv())
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown job "no-such-job"[\s\S]*message-center-publish\|message-center-dedupe\|domain-posture\|partition-maintenance\|alerts/)
  }, 60_000)

  // Two processes on one database need a real Postgres (one process owns a PGlite directory): this
  // test exists in the Postgres run of this file (stage integration-postgres of `npm test`).
  if (pgUrl)
    it('while another process holds the job, says "already running" (exit 75) and the cron route and HTTP operation skip too', async () => {
      const holder = new pg.Client({ connectionString: pgUrl })
      await holder.connect()
      try {
        await holder.query('SELECT pg_advisory_lock(72173912, hashtext($1))', ['message-center-publish'])
        const writes = ghostWrites()
        const cli = await runCli(['message-center-publish'], cliEnv())
        expect(cli.code, cli.stderr).toBe(75)
        expect(cli.stdout.trim()).toBe('message-center-publish: already running: another run holds the lock; nothing done')
        const viaCron = await cron('message-center-publish', bearer())
        expect(viaCron.status).toBe(200)
        expect(await viaCron.json()).toMatchObject({ outcome: 'skipped', summary: expect.stringMatching(/^Already running/) })
        const viaHttp = await fetch(`${app.url}/api/office/messagecenter/publish`, { method: 'POST', headers: { 'x-tc-api-key': KEY } })
        expect(viaHttp.status).toBe(409)
        expect(await viaHttp.json()).toEqual({ error: expect.stringMatching(/^Already running/), requestId: expect.any(String) })
        expect(ghostWrites()).toBe(writes)
      } finally {
        await holder.end()
      }
      // Released with the holder's session: the next start runs.
      expect((await (await cron('message-center-publish', bearer())).json()).outcome).toBe('succeeded')
    }, 90_000)
})

describe(`job history and health (${driverName})`, () => {
  it('job_runs is queryable in the query application, newest first, with every trigger', async () => {
    const rows = await queryRows('job_runs', "job = 'message-center-publish'")
    const triggers = new Set(rows.map((r) => r.trigger))
    expect(triggers.has('cron')).toBe(true)
    if (pgUrl) expect(triggers.has('cli')).toBe(true) // the command line shared the database
    expect(rows.filter((r) => r.trigger === 'cron').map((r) => r.outcome)).toContain('dry-run')
    // The run that published (later runs find the posts on the blog and skip them).
    expect(rows.filter((r) => r.outcome === 'succeeded').map((r) => JSON.parse(String(r.counts)).published)).toContain(5)
    const dashboard = await fetch(`${app.url}/query/api/dashboard`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url, 'cf-access-jwt-assertion': await signToken(accessKey) },
      body: JSON.stringify({ dataset: 'job_runs', dateFrom: today(), dateTo: today() }),
    })
    expect(dashboard.status).toBe(200)
    const panel = ((await dashboard.json()) as { panels: Array<{ id: string; series?: Array<{ key: string; values: number[] }> }> }).panels.find(
      (p) => p.id === 'runs_by_outcome',
    )!
    const total = (key: string) => panel.series!.find((s) => s.key === key)!.values.reduce((a, b) => a + b, 0)
    expect(total('succeeded')).toBeGreaterThanOrEqual(3) // publish and two domain-posture runs
    expect(total('dry_run')).toBeGreaterThanOrEqual(1)
  })

  it('GET /api/health reports each job’s last success and flags the overdue one', async () => {
    const res = await fetch(`${app.url}/api/health`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.jobs['message-center-publish']).toMatchObject({
      schedule: '15 * * * *',
      lastSuccess: expect.stringMatching(new RegExp(`^${today()}`)),
      overdue: false,
    })
    expect(body.jobs['domain-posture']).toMatchObject({ lastRun: { outcome: 'succeeded' }, overdue: false })
    expect(body.jobs['message-center-dedupe']).toMatchObject({ schedule: '45 3 * * *', overdue: true, lastSuccess: expect.any(String) })
    expect(body.jobs['partition-maintenance']).toEqual({ schedule: '30 0 * * *', lastSuccess: null, lastRun: null, dueBy: null, overdue: false })
    expect(body.jobs.alerts).toMatchObject({ schedule: '*/5 * * * *', lastRun: { outcome: 'succeeded' }, overdue: false })
    // Liveness stays a bare answer.
    expect((await (await fetch(`${app.url}/api/health?probe=live`)).json()).jobs).toBeUndefined()
  })
})

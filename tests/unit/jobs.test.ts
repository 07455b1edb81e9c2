import { readFileSync } from 'node:fs'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '@/lib/db/client'
import { CHECK_NAMES, type DomainHealthReport } from '@/lib/domains/schemas'
import { compare, OVERALL, runDomainPosture } from '@/lib/jobs/domain-posture'
import { DEFAULT_JOB_SCHEDULES, JOB_NAMES } from '@/lib/jobs/names'
import type { JobDefinition } from '@/lib/jobs/registry'
import { ALREADY_RUNNING, runJob } from '@/lib/jobs/run'
import { nextRun, parseCron } from '@/lib/jobs/schedule'
import { runDashboard, runQuery } from '@/lib/query/service'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// The job machinery on each driver: the lock (two concurrent starts, one "already running"),
// job_runs rows, domain_checks change detection, and both tables as query datasets.

let testDatabase: TestDatabase
let database: Database
const deps = () => ({ database: async () => database })
const q = async (query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows
const today = () => new Date().toISOString().slice(0, 10)

beforeAll(async () => {
  testDatabase = await openTestDatabase('jobs', { fresh: true })
  database = testDatabase.database
  await database.migrate()
}, 120_000)

afterAll(async () => {
  await testDatabase?.close()
})

/** A job that waits until released, so a second start overlaps the first. */
function gatedJob(name: string): { job: JobDefinition; release: () => void; started: Promise<void> } {
  let release!: () => void
  let markStarted!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const started = new Promise<void>((r) => (markStarted = r))
  return {
    release,
    started,
    job: {
      name: name as JobDefinition['name'],
      description: 'test',
      async run({ dryRun }) {
        markStarted()
        await gate
        return { summary: dryRun ? 'would do 3 things' : 'did 3 things', counts: { things: 3 } }
      },
    },
  }
}

describe(`runJob (${driverName})`, { timeout: 60_000 }, () => {
  it('runs a job once at a time: a second start while it runs is skipped as already running', async () => {
    const { job, release, started } = gatedJob('message-center-publish')
    const jobs = { 'message-center-publish': job }
    const first = runJob('message-center-publish', { trigger: 'cron' }, { ...deps(), jobs })
    await started
    const second = await runJob('message-center-publish', { trigger: 'cli' }, { ...deps(), jobs })
    expect(second).toMatchObject({ outcome: 'skipped', summary: ALREADY_RUNNING, error: null, recorded: true })
    release()
    expect(await first).toMatchObject({ outcome: 'succeeded', counts: { things: 3 }, recorded: true })
    // The lock is released: a third start runs.
    const again = gatedJob('message-center-publish')
    again.release()
    expect(
      (await runJob('message-center-publish', { trigger: 'http', dryRun: true }, { ...deps(), jobs: { 'message-center-publish': again.job } })).outcome,
    ).toBe('dry-run')
  })

  it('writes one job_runs row per run with trigger, outcome, counts and error', async () => {
    const failing: JobDefinition = { name: 'message-center-dedupe', description: 'test', run: async () => Promise.reject(new Error('Ghost answered 502')) }
    const run = await runJob('message-center-dedupe', { trigger: 'cli' }, { ...deps(), jobs: { 'message-center-dedupe': failing } })
    expect(run).toMatchObject({ outcome: 'failed', error: 'Ghost answered 502', recorded: true })
    const rows = await q(sql`SELECT job, trigger, outcome, counts, error, ended_at >= started_at AS ordered FROM job_runs ORDER BY id`) // in the order the runs ended
    expect(rows.map((r) => [r.job, r.trigger, r.outcome])).toEqual([
      ['message-center-publish', 'cli', 'skipped'],
      ['message-center-publish', 'cron', 'succeeded'],
      ['message-center-publish', 'http', 'dry-run'],
      ['message-center-dedupe', 'cli', 'failed'],
    ])
    expect(rows[1].counts).toEqual({ things: 3 })
    expect(rows[3].error).toBe('Ghost answered 502')
    expect(rows.every((r) => r.ordered === true)).toBe(true)
  })

  it('never throws: a database that cannot be opened is a failed run', async () => {
    const run = await runJob('domain-posture', { trigger: 'cron' }, { database: () => Promise.reject(new Error('connection refused')) })
    expect(run).toMatchObject({ outcome: 'failed', recorded: false, error: expect.stringMatching(/database unavailable: connection refused/) })
  })

  it('job_runs is a dataset: rows, quick filters and the runs-by-outcome panel (rollup and rows agree)', async () => {
    const page = await runQuery({ dataset: 'job_runs', dateFrom: today(), dateTo: today(), filter: "outcome = 'skipped'" }, { database })
    expect(page.rows.map((r) => [r.job, r.outcome])).toEqual([['message-center-publish', 'skipped']])
    const dash = await runDashboard({ dataset: 'job_runs', dateFrom: today(), dateTo: today() }, { database })
    const rows = await runDashboard({ dataset: 'job_runs', dateFrom: today(), dateTo: today() }, { database, rollups: false })
    const panel = dash.panels.find((p) => p.id === 'runs_by_outcome')!
    expect(panel.source).toBe('rollup')
    if (panel.kind !== 'timeseries') throw new Error('not a time series')
    const totals = Object.fromEntries(panel.series.map((s) => [s.key, s.values.reduce((a, b) => a + b, 0)]))
    expect(totals).toEqual({ succeeded: 1, failed: 1, skipped: 1, dry_run: 1 })
    expect(rows.panels.find((p) => p.id === 'runs_by_outcome')).toMatchObject({ source: 'rows', series: panel.series })
  })

  it('records the run as running when it starts and completes that row when it ends', async () => {
    const { job, release, started } = gatedJob('domain-posture')
    const run = runJob('domain-posture', { trigger: 'cron' }, { ...deps(), jobs: { 'domain-posture': job } })
    await started
    const running = await q(sql`SELECT started_at, ended_at, duration_ms, outcome FROM job_runs WHERE job = 'domain-posture'`)
    expect(running).toEqual([expect.objectContaining({ outcome: 'running', ended_at: null, duration_ms: null })])
    const { jobStatuses } = await import('@/lib/jobs/status')
    expect((await jobStatuses(database.db))['domain-posture'].lastRun?.outcome).toBe('running')
    release()
    expect(await run).toMatchObject({ outcome: 'succeeded', recorded: true })
    const done = await q(sql`SELECT started_at, outcome, ended_at IS NOT NULL AS ended FROM job_runs WHERE job = 'domain-posture'`)
    expect(done).toEqual([{ started_at: running[0].started_at, outcome: 'succeeded', ended: true }])
  })

  it('a run whose process died shows as abandoned in health, and the next run marks its row abandoned', async () => {
    const { jobStatuses } = await import('@/lib/jobs/status')
    // What a process killed mid-run leaves: a running row, and no lock held.
    await database.db.execute(sql`INSERT INTO job_runs (started_at, job, trigger, outcome) VALUES (now(), 'message-center-dedupe', 'cli', 'running')`)
    expect((await jobStatuses(database.db))['message-center-dedupe'].lastRun?.outcome).toBe('abandoned')
    const ok: JobDefinition = { name: 'message-center-dedupe', description: 'test', run: async () => ({ summary: 'nothing to do', counts: {} }) }
    expect(await runJob('message-center-dedupe', { trigger: 'cron' }, { ...deps(), jobs: { 'message-center-dedupe': ok } })).toMatchObject({
      outcome: 'succeeded',
    })
    const rows = await q(sql`SELECT outcome, summary FROM job_runs WHERE job = 'message-center-dedupe' ORDER BY started_at`)
    expect(rows.map((r) => r.outcome)).toEqual(['failed', 'abandoned', 'succeeded'])
    expect(rows[1].summary).toMatch(/^Abandoned: the process running it ended/)
  })
})

/** A report with one grade and the given statuses (every other check passes). */
function report(
  domain: string,
  grade: 'A' | 'B' | 'C' | 'D' | 'F',
  statuses: Partial<Record<(typeof CHECK_NAMES)[number], string>> = {},
  detail = 'ok',
): DomainHealthReport {
  const checks = Object.fromEntries(CHECK_NAMES.map((n) => [n, { status: statuses[n] ?? 'pass', detail, warnings: [], records: [], recommendation: null }]))
  return {
    domain,
    grade,
    score: { A: 95, B: 80, C: 65, D: 45, F: 10 }[grade],
    summary: { pass: 10, warn: 0, fail: 0, info: 0, not_found: 0 },
    checks,
  } as unknown as DomainHealthReport
}

describe(`domain-posture (${driverName})`, { timeout: 60_000 }, () => {
  const at = (iso: string) => () => new Date(iso)

  it('stores one row per domain and check, and what changed since the previous run', async () => {
    const domains = () => ['example.com', 'example.org']
    const first = await runDomainPosture(
      database.db,
      { dryRun: false },
      { domains, now: at(`${today()}T01:00:00Z`), check: async (d) => report(d, 'B', { dmarc: 'warn' }) },
    )
    expect(first.counts).toEqual({ domains: 2, checked: 2, errors: 0, rows: 2 * (1 + CHECK_NAMES.length), changes: 0 })

    // Second run: example.com's DMARC now passes and its grade went up; example.org cannot be checked.
    const second = await runDomainPosture(
      database.db,
      { dryRun: false },
      {
        domains,
        now: at(`${today()}T02:00:00Z`),
        check: async (d) => (d === 'example.org' ? Promise.reject(new Error('The resolver answered SERVFAIL')) : report(d, 'A')),
      },
    )
    expect(second.counts).toMatchObject({ checked: 1, errors: 1, changes: 3 })
    expect(second.errors).toEqual(['example.org: The resolver answered SERVFAIL'])
    const changes = await q(sql`SELECT domain, check_name, previous_status, change FROM domain_checks WHERE changed ORDER BY domain, check_name`)
    expect(changes).toEqual([
      { domain: 'example.com', check_name: 'dmarc', previous_status: 'warn', change: 'status warn → pass' },
      { domain: 'example.com', check_name: OVERALL, previous_status: 'B', change: 'grade B → A' },
      { domain: 'example.org', check_name: OVERALL, previous_status: 'B', change: 'status B → error' },
    ])
    // A dry run compares but stores nothing.
    const before = Number((await q(sql`SELECT count(*) AS n FROM domain_checks`))[0].n)
    const dry = await runDomainPosture(database.db, { dryRun: true }, { domains, check: async (d) => report(d, 'A') })
    // example.org: overall error → A, and its DMARC (last seen in the first run) warn → pass.
    expect(dry.rows.filter((r) => r.changed).map((r) => `${r.domain} ${r.change}`)).toEqual(['example.org status error → A', 'example.org status warn → pass'])
    expect(Number((await q(sql`SELECT count(*) AS n FROM domain_checks`))[0].n)).toBe(before)
  })

  it('findings that change without a status change are a change too; the first run is not', () => {
    const now = { checkName: 'spf', grade: 'A', score: 95, status: 'pass', findings: 'record found | 9 lookups' }
    expect(compare(now, undefined)).toEqual({ previousStatus: null, changed: false, change: null })
    expect(compare(now, { status: 'pass', grade: 'A', findings: 'record found | 9 lookups' })).toEqual({ previousStatus: 'pass', changed: false, change: null })
    expect(compare(now, { status: 'pass', grade: 'A', findings: 'record found | 4 lookups' })).toEqual({
      previousStatus: 'pass',
      changed: true,
      change: 'findings changed',
    })
  })

  it('domain_checks is a dataset: the "Changes" quick filter and the grade-changes panel show the changes', async () => {
    const page = await runQuery({ dataset: 'domain_checks', dateFrom: today(), dateTo: today(), filter: 'changed = true' }, { database })
    expect(page.rows.map((r) => r.change).sort()).toEqual(['grade B → A', 'status B → error', 'status warn → pass'])
    const dash = await runDashboard({ dataset: 'domain_checks', dateFrom: today(), dateTo: today() }, { database })
    const top = dash.panels.find((p) => p.id === 'top_change')!
    expect(top.kind === 'top' && top.rows.map((r) => r.value).sort()).toEqual(['grade B → A', 'status B → error', 'status warn → pass'])
    const sum = (panel: string, key: string) => {
      const p = dash.panels.find((x) => x.id === panel)!
      if (p.kind !== 'timeseries') throw new Error('not a time series')
      return p.series.find((s) => s.key === key)!.values.reduce((a, b) => a + b, 0)
    }
    expect([sum('count_over_time', 'rows'), sum('changes_over_time', 'changes')]).toEqual([2 * 11 + 11 + 1, 3])
    expect(dash.panels.find((p) => p.id === 'changes_over_time')!.source).toBe('rollup')
  })
})

describe('schedules', () => {
  it('computes the next run of the cron forms the schedules use', () => {
    expect(nextRun(parseCron('15 * * * *'), new Date('2026-11-23T10:15:00Z'))?.toISOString()).toBe('2026-11-23T11:15:00.000Z')
    expect(nextRun(parseCron('*/20 8-9 * * 1-5'), new Date('2026-11-21T12:00:00Z'))?.toISOString()).toBe('2026-11-23T08:00:00.000Z') // Saturday → Monday
    expect(nextRun(parseCron('0 6 1 * *'), new Date('2026-11-23T00:00:00Z'))?.toISOString()).toBe('2026-12-01T06:00:00.000Z')
    expect(() => parseCron('61 * * * *')).toThrow(/minute "61".*expected range 0-59/)
    expect(nextRun(parseCron('0 6 1 * 1'), new Date('2026-11-23T00:00:00Z'))?.toISOString()).toBe('2026-11-23T06:00:00.000Z') // day of month OR day of week
    expect(() => parseCron('* * *')).toThrow(/five fields/)
    expect(() => parseCron('0 6 * 13 *')).toThrow(/month "13"/)
  })

  it('JOB_SCHEDULES overrides the defaults per job and names a bad entry', async () => {
    const { loadConfig } = await import('@/lib/config')
    const { jobSchedules } = await import('@/lib/jobs/schedule')
    expect(jobSchedules(loadConfig({ JOB_SCHEDULES: 'domain-posture=0 5 * * 1; message-center-publish = */30 * * * *' }).JOB_SCHEDULES)).toEqual({
      ...DEFAULT_JOB_SCHEDULES,
      'domain-posture': '0 5 * * 1',
      'message-center-publish': '*/30 * * * *',
    })
    expect(jobSchedules(loadConfig({}).JOB_SCHEDULES)).toEqual(DEFAULT_JOB_SCHEDULES)
    expect(() => jobSchedules(loadConfig({ JOB_SCHEDULES: 'domain-posture=0 25 * * *' }).JOB_SCHEDULES)).toThrow(/JOB_SCHEDULES[\s\S]*hour/)
    expect(() => jobSchedules(loadConfig({ JOB_SCHEDULES: 'backup=0 1 * * *' }).JOB_SCHEDULES)).toThrow(/JOB_SCHEDULES: backup: .*among/)
  })

  it('vercel.json has one cron per job, on its default schedule, calling its cron route', () => {
    const vercel = JSON.parse(readFileSync(new URL('../../vercel.json', import.meta.url), 'utf8')) as { crons: Array<{ path: string; schedule: string }> }
    expect(vercel.crons).toEqual(JOB_NAMES.map((name) => ({ path: `/api/cron/${name}`, schedule: DEFAULT_JOB_SCHEDULES[name] })))
  })
})

describe(`job status for /api/health (${driverName})`, { timeout: 60_000 }, () => {
  it('reports each job’s last success and flags one overdue against its schedule', async () => {
    await database.db.execute(sql`DELETE FROM job_runs`)
    // domain-posture (daily at 06:00) last succeeded yesterday at 06:00, and failed today at 06:00;
    // message-center-publish (hourly at :15) succeeded at 10:15; dedupe never ran.
    await database.db.execute(sql`INSERT INTO job_runs (started_at, ended_at, job, trigger, outcome, duration_ms) VALUES
      ('2026-11-22T06:00:00Z', '2026-11-22T06:00:05Z', 'domain-posture', 'cron', 'succeeded', 5000),
      ('2026-11-23T06:00:00Z', '2026-11-23T06:00:05Z', 'domain-posture', 'cron', 'failed', 5000),
      ('2026-11-23T10:15:00Z', '2026-11-23T10:15:01Z', 'message-center-publish', 'cron', 'succeeded', 1000),
      ('2026-11-23T10:00:00Z', '2026-11-23T10:00:01Z', 'message-center-publish', 'cli', 'succeeded', 1000)`)
    const { jobStatuses } = await import('@/lib/jobs/status')
    const now = new Date('2026-11-23T11:20:00Z')
    const status = await jobStatuses(database.db, now, { ...DEFAULT_JOB_SCHEDULES }, 900)
    expect(status['domain-posture']).toEqual({
      schedule: '0 6 * * *',
      lastSuccess: '2026-11-22T06:00:00.000Z',
      lastRun: { startedAt: '2026-11-23T06:00:00.000Z', outcome: 'failed' },
      dueBy: '2026-11-23T06:15:00.000Z',
      overdue: true,
    })
    // Due at 11:15 plus 15 minutes of grace: not yet overdue at 11:20, overdue at 11:31.
    expect(status['message-center-publish']).toMatchObject({ lastSuccess: '2026-11-23T10:15:00.000Z', dueBy: '2026-11-23T11:30:00.000Z', overdue: false })
    expect((await jobStatuses(database.db, new Date('2026-11-23T11:31:00Z'), { ...DEFAULT_JOB_SCHEDULES }, 900))['message-center-publish'].overdue).toBe(true)
    expect(status['message-center-dedupe']).toEqual({ schedule: '45 3 * * *', lastSuccess: null, lastRun: null, dueBy: null, overdue: false })
  })
})

describe('cron route authorisation', () => {
  it('accepts only `Bearer <CRON_SECRET>`, and nothing at all without a configured secret', async () => {
    const { cronAuthProblem, isCronSecret } = await import('@/lib/jobs/cron-secret')
    const secret = 's3cret-value-of-some-length'
    expect(cronAuthProblem(`Bearer ${secret}`, undefined)).toEqual({ code: 'forbidden', message: expect.stringMatching(/CRON_SECRET is not configured/) })
    expect(cronAuthProblem(`Bearer ${secret}`, '')).toMatchObject({ code: 'forbidden' })
    expect(cronAuthProblem(`Bearer ${secret}`, secret)).toBeNull()
    expect(cronAuthProblem(`bearer ${secret}`, secret)).toBeNull()
    for (const header of [null, '', secret, `Basic ${secret}`, `Bearer ${secret}x`, `Bearer ${secret.slice(0, -1)}`, `Bearer ${secret} extra`, 'Bearer '])
      expect(cronAuthProblem(header, secret), String(header)).toMatchObject({ code: 'unauthorized' })
    // Digests of equal length whatever the inputs' lengths: timingSafeEqual never throws.
    expect(isCronSecret('a', 'a much longer secret than the presented one')).toBe(false)
    expect(isCronSecret(secret, secret)).toBe(true)
  })
})

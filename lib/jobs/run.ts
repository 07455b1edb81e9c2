import 'server-only'
import { sql } from 'drizzle-orm'
import { getReadyDatabase, type Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { withJobLock } from '@/lib/jobs/lock'
import type { JobName } from '@/lib/jobs/names'
import { JOBS, type JobDefinition, type JobReport } from '@/lib/jobs/registry'
import { log } from '@/lib/log'
import { rowsOf } from '@/lib/db/rows'
import { write as writeJobRuns } from '@/lib/datasets/job-runs/store'

// runJob(): the one way a job runs, whoever starts it (a cron route, `npm run job`, an internal
// HTTP operation). It takes the job's lock (lib/jobs/lock.ts; a second start while one runs is
// `skipped`, "already running"), records the run as `running`, runs the job, completes the row
// when it ends, and never throws: every failure is an outcome with its error text. A `running` row
// left by a process that died is marked `abandoned` by the next run of the job, which can only hold
// the lock once that process is gone (health shows such a row as abandoned too: lib/jobs/status.ts).
// The rollup (dashboards' counts) gets a run once it is complete; running and abandoned rows are
// in the rows only.

export const TRIGGERS = ['cron', 'cli', 'http', 'timer'] as const
export type Trigger = (typeof TRIGGERS)[number]
export const OUTCOMES = ['succeeded', 'failed', 'skipped', 'dry-run', 'running', 'abandoned'] as const
export type Outcome = (typeof OUTCOMES)[number]

export interface RunOptions {
  trigger: Trigger
  dryRun?: boolean
  /** Publishing only: most posts created by this run. */
  limit?: number
}

export interface JobRun {
  job: JobName
  trigger: Trigger
  outcome: Outcome
  startedAt: string
  endedAt: string
  durationMs: number
  counts: Record<string, number>
  summary: string
  error: string | null
  /** Whether the job_runs row was written. */
  recorded: boolean
  /** The service's own answer, when the job ran to its end. */
  report?: unknown
  /** What the job threw, for callers that map it to their own errors (the HTTP operations). */
  cause?: unknown
}

export interface RunDeps {
  database?: () => Promise<Database>
  jobs?: Readonly<Record<string, JobDefinition>>
}

export const ALREADY_RUNNING = 'Already running: another run of this job holds its lock; this start did nothing.'

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

export async function runJob(name: JobName, opts: RunOptions, deps: RunDeps = {}): Promise<JobRun> {
  const started = new Date()
  const t0 = performance.now()
  const dryRun = opts.dryRun ?? false
  const finish = (fields: Pick<JobRun, 'outcome' | 'summary' | 'error'> & Partial<JobRun>): JobRun => ({
    job: name,
    trigger: opts.trigger,
    startedAt: started.toISOString(),
    endedAt: new Date().toISOString(),
    durationMs: Math.round((performance.now() - t0) * 100) / 100,
    counts: {},
    recorded: false,
    ...fields,
  })
  const job = (deps.jobs ?? JOBS)[name]
  if (!job) return finish({ outcome: 'failed', summary: `No job named ${name}.`, error: `unknown job ${name}` })

  let database: Database
  try {
    database = await (deps.database ?? getReadyDatabase)()
  } catch (error) {
    // The lock and the history live in the database: without it the job does not start.
    const run = finish({
      outcome: 'failed',
      summary: 'Not run: the database (lock and history) is unavailable.',
      error: `database unavailable: ${message(error)}`,
      cause: new AppError('unavailable', 'The database is unavailable: the job cannot take its lock or record its run; retry later.'),
    })
    log.error('job not run', { job: name, trigger: opts.trigger, error: run.error })
    return run
  }

  let run: JobRun
  let runningId: string | null = null
  try {
    const locked = await withJobLock(database, name, async (): Promise<{ ok: true; report: JobReport } | { ok: false; error: unknown }> => {
      runningId = await recordStart(database, name, opts.trigger, started)
      try {
        return { ok: true, report: await job.run({ db: database.db, database, dryRun, limit: opts.limit }) }
      } catch (error) {
        return { ok: false, error }
      }
    })
    if (!locked.acquired) run = finish({ outcome: 'skipped', summary: ALREADY_RUNNING, error: null })
    else if (!locked.value.ok)
      run = finish({ outcome: 'failed', summary: `Failed: ${message(locked.value.error)}`, error: message(locked.value.error), cause: locked.value.error })
    else {
      const r = locked.value.report
      const outcome: Outcome = r.failure ? 'failed' : dryRun ? 'dry-run' : 'succeeded'
      run = finish({ outcome, summary: r.summary, counts: r.counts, error: r.failure ?? null, report: r.report })
    }
  } catch (error) {
    // The lock's own connection failed (the database went away mid-run).
    run = finish({ outcome: 'failed', summary: `Failed: ${message(error)}`, error: message(error), cause: error })
  }

  try {
    // counts travels as a JSON object inside the rows' JSON, so it lands in jsonb as an object.
    const row = {
      startedAt: started,
      endedAt: new Date(run.endedAt),
      job: name,
      trigger: opts.trigger,
      outcome: run.outcome,
      durationMs: run.durationMs,
      counts: run.counts,
      summary: run.summary.slice(0, 2000),
      error: run.error?.slice(0, 2000) ?? null,
    }
    const id = runningId as string | null
    // The running row is replaced by the complete one (added to the rollup) in one transaction;
    // also when a run that started just after the lock was released marked it abandoned.
    await database.db.transaction(async (tx) => {
      if (id !== null) await tx.execute(sql`DELETE FROM job_runs WHERE started_at = ${started.toISOString()} AND id = ${id}`)
      await writeJobRuns.insert(tx, [row])
    })
    run.recorded = true
  } catch (error) {
    log.warn('job run not recorded in job_runs', { job: name, error: message(error) })
  }
  const level = run.outcome === 'failed' ? 'warn' : 'info'
  log[level]('job run', { job: name, trigger: run.trigger, outcome: run.outcome, durationMs: run.durationMs, counts: run.counts, error: run.error })
  return run
}

const ABANDONED_SUMMARY = 'Abandoned: the process running it ended before the run did (killed, crashed or stopped).'

/**
 * Under the job's lock: marks `running` rows of this job as `abandoned` (no other run can be
 * alive: it would hold the lock), then writes this run's `running` row. Returns its id, or null
 * when the row could not be written (the run goes on; its row is written at the end).
 */
async function recordStart(database: Database, name: JobName, trigger: Trigger, started: Date): Promise<string | null> {
  try {
    const abandoned = rowsOf(
      await database.db.execute(
        sql`UPDATE job_runs SET outcome = 'abandoned', summary = ${ABANDONED_SUMMARY} WHERE job = ${name} AND outcome = 'running' RETURNING started_at`,
      ),
    )
    if (abandoned.length > 0) log.warn('earlier runs of the job were abandoned', { job: name, runs: abandoned.length })
    const result = await database.db.execute(
      sql`INSERT INTO job_runs (started_at, job, trigger, outcome, summary) VALUES (${started.toISOString()}, ${name}, ${trigger}, 'running', 'Running.') RETURNING id::text AS id`,
    )
    return rowsOf<{ id: string }>(result)[0].id
  } catch (error) {
    log.warn('job run not recorded as running', { job: name, error: message(error) })
    return null
  }
}

/**
 * The service's own answer of a run, for the internal HTTP operations: "already running" is a 409,
 * a run that threw rethrows it (the operation maps it to its error), else the report.
 */
export function reportOf(run: JobRun): unknown {
  if (run.outcome === 'skipped') throw new AppError('conflict', ALREADY_RUNNING)
  if (run.report !== undefined) return run.report
  throw run.cause ?? new AppError('internal', run.error ?? 'The job failed.')
}

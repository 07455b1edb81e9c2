import 'server-only'
import { sql } from 'drizzle-orm'
import { config } from '@/lib/config'
import type { Db } from '@/lib/db/client'
import { parseTimestamp, rowsOf } from '@/lib/db/rows'
import { LOCK_HELD_SQL, runningHere } from '@/lib/jobs/lock'
import { JOB_NAMES, type JobName } from '@/lib/jobs/names'
import type { Outcome } from '@/lib/jobs/run'
import { jobSchedules, nextRun, parseCron } from '@/lib/jobs/schedule'

// Each job's last success and whether it is overdue, for /api/health. A job is overdue when the
// run its schedule called for after its last success (or, never having succeeded, after its first
// run) has not succeeded within JOB_OVERDUE_GRACE_S. A job that never ran is not judged: nothing
// says when it was meant to start. Demonstration rows (npm run db:seed) are not counted.

export interface JobStatus {
  schedule: string
  lastSuccess: string | null
  lastRun: { startedAt: string; outcome: Outcome } | null
  dueBy: string | null
  overdue: boolean
}

const iso = (v: unknown) => (v === null || v === undefined ? null : parseTimestamp(v).toISOString())

export async function jobStatuses(
  db: Db,
  now = new Date(),
  schedules: Record<JobName, string> = jobSchedules(),
  graceS = config.JOB_OVERDUE_GRACE_S,
): Promise<Record<JobName, JobStatus>> {
  const names = sql.join(
    JOB_NAMES.map((n) => sql`(${n})`),
    sql`, `,
  )
  // Each sub-select reads the (job, started_at) index of each day partition from one end.
  const result = await db.execute(sql`SELECT j.job,
    (SELECT max(r.started_at) FROM job_runs r WHERE r.job = j.job AND r.outcome = 'succeeded' AND NOT r.demo) AS last_success,
    (SELECT min(r.started_at) FROM job_runs r WHERE r.job = j.job AND NOT r.demo) AS first_run,
    (SELECT max(r.started_at) FROM job_runs r WHERE r.job = j.job AND NOT r.demo) AS last_run,
    (SELECT r.outcome FROM job_runs r WHERE r.job = j.job AND NOT r.demo ORDER BY r.started_at DESC, r.id DESC LIMIT 1) AS last_outcome,
    ${sql.raw(LOCK_HELD_SQL('j.job'))} AS lock_held
  FROM (VALUES ${names}) AS j(job)`)
  const byJob = new Map(rowsOf(result).map((r) => [String(r.job), r]))
  return Object.fromEntries(
    JOB_NAMES.map((name) => {
      const r = byJob.get(name) ?? {}
      const lastSuccess = iso(r.last_success)
      const reference = lastSuccess ?? iso(r.first_run)
      const due = reference ? nextRun(parseCron(schedules[name]), new Date(reference)) : null
      const dueBy = due ? new Date(due.getTime() + graceS * 1000) : null
      const startedAt = iso(r.last_run)
      let outcome = r.last_outcome === null || r.last_outcome === undefined ? null : String(r.last_outcome)
      // A running row whose lock nobody holds: the process running it died (the next run marks it so).
      if (outcome === 'running' && r.lock_held !== true && !runningHere(name)) outcome = 'abandoned'
      const status: JobStatus = {
        schedule: schedules[name],
        lastSuccess,
        lastRun: startedAt && outcome ? { startedAt, outcome: outcome as Outcome } : null,
        dueBy: dueBy?.toISOString() ?? null,
        overdue: dueBy !== null && now.getTime() > dueBy.getTime(),
      }
      return [name, status]
    }),
  ) as Record<JobName, JobStatus>
}

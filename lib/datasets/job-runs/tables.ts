import { doublePrecision, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { id, at, demo, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/job-runs/definition'

export const jobRuns = pgTable(
  'job_runs',
  {
    id: id(),
    startedAt: at('started_at').notNull(),
    // Null while the run is `running` (its row is written when it starts) and for an `abandoned` one.
    endedAt: at('ended_at'),
    job: text('job').notNull(),
    trigger: text('trigger').notNull(),
    outcome: text('outcome').notNull(),
    durationMs: doublePrecision('duration_ms'),
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    summary: text('summary'),
    error: text('error'),
    demo: demo(),
  },
  (t) => [
    primaryKey({ name: 'job_runs_pkey', columns: [t.startedAt, t.id] }),
    // The last success and last run of each job (/api/health) and the quick filters by job.
    index('job_runs_job_time_idx').on(t.job, t.startedAt),
    index('job_runs_outcome_time_idx').on(t.outcome, t.startedAt),
    index('job_runs_trigger_time_idx').on(t.trigger, t.startedAt),
  ],
)

export const jobRunsRollup = rollupTable(definition)

import { z } from 'zod'
import { JOB_NAMES } from '@/lib/jobs/names'

export const HealthQuery = z.object({
  probe: z.enum(['ready', 'live']).optional().meta({
    description:
      '`ready` (default): check every dependency; 503 only while the process is shutting down or a required dependency is down. `live`: no dependency checks, 200 as long as the process answers.',
  }),
})

export const BreakerState = z
  .object({
    state: z.enum(['closed', 'open']).meta({ description: '`open`: the dependency kept failing; it is not called until a background probe answers' }),
    failures: z.number().int().meta({ description: 'Consecutive failures while closed' }),
    opened: z.number().int().meta({ description: 'Times the circuit opened since start' }),
    nextProbeInMs: z.number().nullable(),
  })
  .meta({ id: 'BreakerState' })

export const RequestLogHealth = z
  .object({
    mode: z.enum(['journal', 'memory']).meta({
      description:
        '`journal`: entries are appended to local segment files and shipped to the database; `memory`: no writable directory, entries wait in memory only',
    }),
    pending: z.number().int().meta({ description: 'Entries in memory: waiting for the next group commit (journal) or for the database (memory)' }),
    spool: z
      .object({
        state: z.enum(['on', 'off']),
        reason: z.string().optional().meta({ description: 'Why the journal is off' }),
        budgetBytes: z.number().int().optional().meta({ description: 'REQUEST_LOG_SPOOL_MAX_MB in bytes' }),
        bytes: z.number().int().optional(),
        segments: z.number().int().optional(),
        oldestEntryAt: z.iso.datetime().nullable().optional().meta({ description: 'The oldest entry not yet stored in the database' }),
        dropped: z.number().int().meta({ description: 'Entries lost: since `droppedSince` with the journal (kept across restarts), since start without' }),
        droppedSince: z.iso.datetime().optional(),
        lastDroppedAt: z.iso
          .datetime()
          .nullable()
          .optional()
          .meta({ description: 'When an entry was last dropped; within the last minute the check says `dropping`' }),
      })
      .meta({ description: 'The local journal of the request log (docs/request-log.md)' }),
    shipper: z.object({
      lagMs: z.number().meta({ description: 'Age of the oldest entry not yet stored; 0 when nothing waits' }),
      lastStoredAt: z.iso.datetime().nullable(),
      failures: z.number().int().meta({ description: 'Consecutive failed writes' }),
    }),
  })
  .meta({ id: 'RequestLogHealth' })

export const HealthCheck = z
  .object({
    status: z.enum(['ok', 'dropping', 'down']).meta({
      description: '`dropping` (the request log only): entries were dropped within the last minute (journal budget spent, disk full, memory buffer full)',
    }),
    required: z.boolean().meta({ description: 'A required dependency being down makes the service answer 503' }),
    latencyMs: z.number().nullable(),
    detail: z.string(),
    breaker: BreakerState.optional(),
    requestLog: RequestLogHealth.optional().meta({ description: 'The request log check only: its journal and shipper' }),
    lagSeconds: z
      .number()
      .nullable()
      .optional()
      .meta({ description: 'The query replica check only: seconds its data is behind the primary (0 when caught up; null when it cannot tell)' }),
  })
  .meta({ id: 'HealthCheck' })

export const JobHealth = z
  .object({
    schedule: z.string().meta({ description: 'When the job is due: five-field cron, UTC (JOB_SCHEDULES)', examples: ['15 * * * *'] }),
    lastSuccess: z.iso.datetime().nullable().meta({ description: 'Start of the last successful run; null if none is recorded' }),
    lastRun: z
      .object({ startedAt: z.iso.datetime(), outcome: z.enum(['succeeded', 'failed', 'skipped', 'dry-run', 'running', 'abandoned']) })
      .nullable()
      .meta({ description: 'The latest run, whatever its outcome; null if the job never ran' }),
    dueBy: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the next success is due: the scheduled run after the last success (or the first run) plus JOB_OVERDUE_GRACE_S' }),
    overdue: z.boolean().meta({ description: 'True once dueBy has passed without a success. A job that never ran is not overdue.' }),
  })
  .meta({ id: 'JobHealth' })

export const HealthResult = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({ description: '`ok` when every dependency answered, `degraded` otherwise (the service still answers)' }),
    version: z.string().meta({ examples: ['1.1.0'] }),
    uptimeSeconds: z.number(),
    time: z.iso.datetime(),
    checks: z
      .record(z.string(), HealthCheck)
      .meta({ description: 'Per dependency: the rate-limit store, the database, the request log. Empty for `probe=live`.' }),
    jobs: z
      .record(z.string(), JobHealth)
      .optional()
      .meta({
        description: `Per scheduled job (${JOB_NAMES.join(', ')}): its last success and whether it is overdue; read from the job_runs history. Absent for \`probe=live\` and when the history cannot be read within a second. An overdue job does not change \`status\`.`,
      }),
  })
  .meta({ id: 'HealthResult' })
export type HealthResult = z.infer<typeof HealthResult>
export type HealthCheck = z.infer<typeof HealthCheck>
export type JobHealth = z.infer<typeof JobHealth>

import 'server-only'
import pkg from '@/package.json'
import { config } from '@/lib/config'
import { getDatabase, getReadyDatabase } from '@/lib/db/client'
import { jobStatuses } from '@/lib/jobs/status'
import { log } from '@/lib/log'
import { AppError } from '@/lib/errors'
import { requestLogWriter } from '@/lib/request-log/writer'
import { getRedis, getRedisBreaker } from '@/lib/redis'
import { isDraining } from '@/lib/shutdown'
import { withTimeout } from '@/lib/timeout'
import type { HealthCheck, HealthResult } from '@/lib/health/schemas'

const CHECK_TIMEOUT_MS = 1000

export type DependencyCheck = () => Promise<[name: string, check: HealthCheck] | null>

async function timed(required: boolean, probe: () => Promise<string>): Promise<HealthCheck> {
  const t0 = performance.now()
  try {
    const detail = await probe()
    return { status: 'ok', required, latencyMs: Math.round((performance.now() - t0) * 100) / 100, detail }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return { status: 'down', required, latencyMs: null, detail: reason }
  }
}

const rateLimitStore: DependencyCheck = async () => {
  const redis = getRedis()
  const breaker = getRedisBreaker()
  if (!redis || !breaker) return ['rateLimitStore', { status: 'ok', required: false, latencyMs: 0, detail: 'in-memory (single process)' }]
  // The limiter falls back to its in-memory count, so a dead store degrades the service rather
  // than stopping it. While the breaker is open the store is not pinged: the breaker probes it.
  const fallback = 'rate limiting counts in memory per instance until it answers'
  const check: HealthCheck = breaker.isOpen()
    ? { status: 'down', required: false, latencyMs: null, detail: 'circuit open: not called until a background probe answers' }
    : await timed(false, async () => {
        await redis.ping(CHECK_TIMEOUT_MS)
        return `${redis.kind} store reachable`
      })
  if (check.status === 'down') check.detail = `${redis.kind} store unreachable (${check.detail}); ${fallback}`
  return ['rateLimitStore', { ...check, breaker: breaker.snapshot() }]
}

// The database of the query application and the request log. The public API does not need it
// (the request log waits in its journal meanwhile), so it is never required.
const database: DependencyCheck = async () => {
  const check = await timed(false, async () => {
    const { driver, db } = await withTimeout(getReadyDatabase(), CHECK_TIMEOUT_MS)
    await withTimeout(db.execute('SELECT 1'), CHECK_TIMEOUT_MS)
    return `${driver} reachable, migrations applied`
  })
  if (check.status === 'down') check.detail = `${check.detail}; the query application is unavailable, the API answers and keeps its request log for later`
  return ['database', check]
}

// The read replica the query role reads (QUERY_DATABASE_URL), and how far behind it is. Only the
// query application's reads need it (they answer 503 while it is down), so it is never required.
const queryReplica: DependencyCheck = async () => {
  if (!config.QUERY_DATABASE_URL) return null
  let lagSeconds: number | null = null
  const check = await timed(false, async () => {
    const { replica } = await withTimeout(getDatabase(), CHECK_TIMEOUT_MS)
    if (!replica) throw new Error('no replica is open')
    const lag = await withTimeout(replica.lag(), CHECK_TIMEOUT_MS)
    lagSeconds = lag.seconds === null ? null : Math.round(lag.seconds * 10) / 10
    if (!lag.inRecovery) return `${replica.driver} reachable at ${replica.target}, not in recovery (a primary, not a replica): no lag`
    const behind = lag.seconds === null ? 'lag unknown (nothing replayed since it started)' : `${lagSeconds} s behind the primary`
    return `${replica.driver} replica reachable at ${replica.target}, ${behind}${lag.paused ? ', replay paused' : ''}`
  })
  if (check.status === 'down')
    return [
      'queryReplica',
      { ...check, detail: `${check.detail}; the query application's queries answer 503 until it is back, the API and saved views are unaffected` },
    ]
  return ['queryReplica', { ...check, lagSeconds }]
}

// The request log: its journal (on or off, bytes against the budget, the oldest entry, what was
// dropped since the journal began) and how far the shipper lags (docs/request-log.md).
/** An entry dropped this recently makes the request log's check say `dropping`. */
const DROPPING_WINDOW_MS = 60_000

const requestLog: DependencyCheck = async () => {
  const writer = requestLogWriter()
  if (!writer) return null
  const s = writer.status()
  const lagS = Math.round(s.shipper.lagMs / 100) / 10
  const detail =
    s.spool.state === 'on'
      ? `journal on: ${s.spool.bytes} of ${s.spool.budgetBytes} bytes in ${s.spool.segments} segments, shipper lag ${lagS} s, ${s.spool.dropped} dropped since ${s.spool.droppedSince}`
      : `journal off (${s.spool.reason}): ${s.pending} entries waiting in memory, ${s.dropped} dropped since start`
  const failing =
    s.failures > 0 ? `; writes failing (${s.failures} in a row), next attempt in ${Math.ceil(((s.retryAt ?? Date.now()) - Date.now()) / 1000)} s` : ''
  const spool =
    s.spool.state === 'on'
      ? {
          state: 'on' as const,
          budgetBytes: s.spool.budgetBytes,
          bytes: s.spool.bytes,
          segments: s.spool.segments,
          oldestEntryAt: s.spool.oldestEntryAt === null ? null : new Date(s.spool.oldestEntryAt).toISOString(),
          dropped: s.spool.dropped,
          droppedSince: s.spool.droppedSince,
          lastDroppedAt: s.lastDroppedAt === null ? null : new Date(s.lastDroppedAt).toISOString(),
        }
      : {
          state: 'off' as const,
          reason: s.spool.reason,
          dropped: s.dropped,
          lastDroppedAt: s.lastDroppedAt === null ? null : new Date(s.lastDroppedAt).toISOString(),
        }
  return [
    'requestLog',
    {
      // Failing writes first; else entries lost within the last minute (budget spent, disk full) say `dropping`.
      status: s.failures > 0 ? 'down' : s.lastDroppedAt !== null && Date.now() - s.lastDroppedAt < DROPPING_WINDOW_MS ? 'dropping' : 'ok',
      required: false,
      latencyMs: null,
      detail: `${detail}${failing}`,
      requestLog: {
        mode: s.mode,
        pending: s.pending,
        spool,
        shipper: {
          lagMs: Math.round(s.shipper.lagMs),
          lastStoredAt: s.shipper.lastStoredAt === null ? null : new Date(s.shipper.lastStoredAt).toISOString(),
          failures: s.failures,
        },
      },
    },
  ]
}

/** Dependency checks, in the order they are reported; subsystems with a dependency add theirs here. */
export const dependencyChecks: DependencyCheck[] = [rateLimitStore, database, queryReplica, requestLog]

/**
 * The health report. `live`: the process answers, nothing else is checked. `ready` (default):
 * every dependency; throws 503 while draining or when a required dependency is down.
 */
// The scheduled jobs' last successes (lib/jobs/status.ts). Never fails the report: a database that
// is slow or down leaves `jobs` out (its own check says why).
async function jobsHealth(): Promise<HealthResult['jobs']> {
  try {
    return await withTimeout((async () => jobStatuses((await getReadyDatabase()).db))(), CHECK_TIMEOUT_MS)
  } catch (error) {
    log.debug('job status unavailable for health', { error: error instanceof Error ? error.message : String(error) })
    return undefined
  }
}

export async function getHealth(probe: 'ready' | 'live' = 'ready'): Promise<HealthResult> {
  // Draining (server/drain.mjs): readiness fails at once, before any dependency is asked; liveness still answers.
  if (probe === 'ready' && isDraining())
    throw new AppError('unavailable', 'Draining: this instance is shutting down and finishing the requests in flight; send new requests to another instance.')
  const [checked, jobs] = probe === 'live' ? [[], undefined] : await Promise.all([Promise.all(dependencyChecks.map((check) => check())), jobsHealth()])
  const entries = checked.filter((e) => e !== null)
  const requiredDown = entries.filter(([, c]) => c.required && c.status === 'down')
  if (requiredDown.length > 0) throw new AppError('unavailable', `Not ready: ${requiredDown.map(([name, c]) => `${name} (${c.detail})`).join('; ')}.`)
  return {
    status: entries.every(([, c]) => c.status === 'ok') ? 'ok' : 'degraded',
    version: pkg.version,
    uptimeSeconds: Math.round(process.uptime()),
    time: new Date().toISOString(),
    checks: Object.fromEntries(entries),
    ...(jobs ? { jobs } : {}),
  }
}

export { database as databaseCheck, queryReplica as queryReplicaCheck }

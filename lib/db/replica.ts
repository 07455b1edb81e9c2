import { AppError, causeMessage, codedCause, isConnectionFailure } from '@/lib/errors'
import type { ResultRow } from '@/lib/db/rows'

// The query role's read replica (QUERY_DATABASE_URL): how far behind the primary it is, and what a
// query answers when it cannot be reached. Pure, apart from the cache's clock.

/** How far behind the primary the replica's data is. */
export interface ReplicaLag {
  /** Seconds behind: 0 once it has replayed everything it received; null when it cannot tell (nothing replayed since it started). */
  seconds: number | null
  /** False: the URL names a server that is not in recovery (a primary), so there is no lag. */
  inRecovery: boolean
  /** Replay paused on the replica (pg_wal_replay_pause()). */
  paused: boolean
}

/**
 * One round trip. A replica that has replayed all the WAL it received is caught up, even when its
 * last replayed transaction is old (an idle primary sends none); only behind that does the age of
 * the last replayed transaction say how late it is. pg_is_wal_replay_paused() fails outside
 * recovery, hence the CASE.
 */
export const REPLICA_LAG_SQL = `SELECT pg_is_in_recovery() AS in_recovery,
  pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() AS caught_up,
  extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS behind_s,
  CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() ELSE false END AS paused`

const bool = (v: unknown) => v === true || v === 't' || v === 'true'

/** The lag from REPLICA_LAG_SQL's row. */
export function readLag(row: ResultRow | undefined): ReplicaLag {
  if (!row || !bool(row.in_recovery)) return { seconds: 0, inRecovery: false, paused: false }
  const paused = bool(row.paused)
  if (bool(row.caught_up)) return { seconds: 0, inRecovery: true, paused }
  const behind = row.behind_s === null || row.behind_s === undefined ? NaN : Number(row.behind_s)
  return { seconds: Number.isFinite(behind) ? Math.max(0, behind) : null, inRecovery: true, paused }
}

/** How long a lag reading is reused: pages and health checks within it share one round trip. */
export const LAG_CACHE_MS = 2000

/** `read`, called at most once per `ttlMs` (a failure is kept as long: a replica that is down is not asked again at once). */
export function cachedFor<T>(ttlMs: number, read: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined
  return () => {
    const t = now()
    if (!last || t - last.at >= ttlMs) {
      last = { at: t, value: read() }
      last.value.catch(() => {}) // awaited by the callers; never an unhandled rejection here
    }
    return last.value
  }
}

/** Seconds a client waits before asking again while the replica cannot be reached. */
export const REPLICA_RETRY_AFTER_S = 5

/** The name that marks a replica connection failure: the error crosses Next's bundles (the pool is process-wide), where classes differ. */
const REPLICA_UNREACHABLE = 'ReplicaUnreachable'

/**
 * A failure of a query on the replica, as lib/db's readOnly() throws it: when the replica could not
 * be reached or dropped the connection, marked as such (replicaFailure() below says what it
 * means); any other error (a statement refused, a timeout, a recovery conflict) as it was.
 */
export function markReplicaFailure(error: unknown): unknown {
  if (!isConnectionFailure(error)) return error
  const marked = new Error(causeMessage(error), { cause: error })
  marked.name = REPLICA_UNREACHABLE
  return marked
}

/** For a marked replica failure, the 503 that says so (the primary, the API and saved views are unaffected); null for any other error. */
export function replicaFailure(error: unknown): AppError | null {
  if (!(error instanceof Error) || error.name !== REPLICA_UNREACHABLE) return null
  return new AppError(
    'unavailable',
    `The query database (the read replica at QUERY_DATABASE_URL) is unavailable: ${error.message}. Queries answer again once it is back; saved views, history and the API are unaffected. Retry after ${REPLICA_RETRY_AFTER_S} seconds.`,
    { retryAfterSeconds: REPLICA_RETRY_AFTER_S, detail: codedCause(error)?.code ?? 'connection' },
  )
}

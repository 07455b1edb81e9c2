import 'server-only'
import type { Database } from '@/lib/db/client'

// One run of a job at a time, across every process sharing the database: a session-level
// Postgres advisory lock (pg_try_advisory_lock) held on a connection of its own for the whole run.
// Postgres releases it when that session ends, so a process that dies mid-run never leaves a
// stale lock behind (unlike a lock key with a TTL). On PGlite the database belongs to one process,
// so a lock in memory is as wide as the lock needs to be.

/** First key of the two-key advisory lock: every job lock of this application. */
const LOCK_NAMESPACE = 72_173_912

export type LockResult<T> = { acquired: true; value: T } | { acquired: false }

const held = new Set<string>()

/** Whether a run of `job` holds its lock in this process (PGlite: the only process on the database). */
export const runningHere = (job: string) => held.has(job)

/**
 * SQL (one boolean) saying whether some session holds `job`'s advisory lock, for a job name
 * column `job`: a two-key advisory lock shows in pg_locks with the keys in classid and objid.
 */
export const LOCK_HELD_SQL = (jobColumn: string) =>
  `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted AND l.classid::bigint = ${LOCK_NAMESPACE} AND l.objid::bigint = (hashtext(${jobColumn})::bigint + 4294967296) % 4294967296)`

/** Runs `fn` holding the job's lock, or returns { acquired: false } at once when another run holds it. */
export async function withJobLock<T>(database: Database, job: string, fn: () => Promise<T>): Promise<LockResult<T>> {
  if (!database.session) {
    if (held.has(job)) return { acquired: false }
    held.add(job)
    try {
      return { acquired: true, value: await fn() }
    } finally {
      held.delete(job)
    }
  }
  return database.session(async (query) => {
    const [row] = await query('SELECT pg_try_advisory_lock($1, hashtext($2)) AS "acquired"', [LOCK_NAMESPACE, job])
    if (row?.acquired !== true) return { acquired: false } as const
    held.add(job)
    try {
      return { acquired: true, value: await fn() } as const
    } finally {
      held.delete(job)
      // The connection goes back to the pool, so the lock must not stay with it.
      await query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_NAMESPACE, job]).catch(() => {})
    }
  })
}

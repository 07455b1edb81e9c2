import 'server-only'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import type { Db } from '@/lib/db/client'
import type { RequestLogEntry } from '@/lib/http/request-log'
import { log } from '@/lib/log'
import { briefError, rowFromJournal, toRow } from '@/lib/request-log/row'
import type { Spool } from '@/lib/request-log/spool'
import { writeRequestLog, type RequestLogRow } from '@/lib/request-log/store'
import type { RequestLogWriter, RequestLogWriterStatus } from '@/lib/request-log/types'
import { Backoff, withTimeout } from '@/lib/timeout'

// Append first, ship later (docs/request-log.md). record() appends the entry to the journal
// (lib/request-log/spool.ts: O(1), the group commit makes it durable within COMMIT_MS); the
// shipper, on its own timer and whether or not traffic flows, claims sealed segments oldest first,
// stores their rows in one transaction (the staging-table COPY of lib/datasets/storage/bulk-insert.ts)
// and deletes them once the transaction committed. The deleted segments are the watermark: what is
// on disk is exactly what is not known to be stored. A crash between the commit and the delete
// ships a segment again; the store's unique key (request_id, time) makes that a no-op.
//
// While the database is down the shipper retries with a short capped backoff (SHIP_BACKOFF_MAX_MS),
// so it catches up within seconds of a restore; the request path never waits for it.

/** How often the shipper looks for sealed segments. */
export const SHIP_MS = 250
/** Bytes of segments per transaction (about 12,000 entries): bounds the work between two yields of the event loop. */
export const SHIP_MAX_BYTES = 4 * 1024 * 1024
export const SHIP_TIMEOUT_MS = 10_000
export const SHIP_BACKOFF_MIN_MS = 250
/** The longest pause between attempts while the database is down. */
export const SHIP_BACKOFF_MAX_MS = 2000
/** How long a graceful stop may spend shipping what is left (it is on disk either way). */
export const SHUTDOWN_SHIP_MS = 2000
/** How often the shipper re-reads the directory for segments of other processes. */
const RESCAN_MS = 5000

export interface DurableRequestLogOptions {
  spool: Spool
  db: () => Promise<Db>
  write?: (db: Db, rows: RequestLogRow[]) => Promise<unknown>
  fullIp?: boolean
  shipMs?: number
  writeTimeoutMs?: number
  backoffMinMs?: number
  backoffMaxMs?: number
  /** While writes fail, a cheap query decides whether to read segments at all (default SELECT 1; none with a custom `write`). */
  ping?: (db: Db) => Promise<unknown>
}

export function createDurableRequestLog(opts: DurableRequestLogOptions): RequestLogWriter {
  const { spool } = opts
  const write = opts.write ?? writeRequestLog
  const writeTimeoutMs = opts.writeTimeoutMs ?? SHIP_TIMEOUT_MS
  const ping = opts.ping ?? (opts.write ? null : (db: Db) => db.execute(sql`SELECT 1`))
  let shipping: Promise<void> | null = null
  const backoff = new Backoff(opts.backoffMinMs ?? SHIP_BACKOFF_MIN_MS, opts.backoffMaxMs ?? SHIP_BACKOFF_MAX_MS)
  let lastStoredAt: number | null = null
  let storedSinceStart = 0
  let lastScan = Date.now()
  let stopped = false

  function failed(error: unknown) {
    const wait = backoff.failed()
    const s = spool.status()
    // One short line per attempt while it fails, at most one every backoffMaxMs.
    log.warn('request log: shipping failed; entries stay in the journal', {
      error: briefError(error),
      attempt: backoff.failures,
      retryInMs: Math.round(wait),
      journalBytes: s.bytes,
      segments: s.segments,
    })
  }

  /** Ships one claim; true when it stored something (there may be more). */
  async function shipOnce(timeoutMs: number): Promise<boolean> {
    if (backoff.failures > 0 && ping) {
      // The database was failing: ask it cheaply before reading and parsing segments for nothing.
      try {
        await withTimeout(
          opts.db().then((db) => ping(db)),
          Math.min(timeoutMs, 2000),
        )
      } catch (error) {
        failed(error)
        return false
      }
    }
    const claim = await spool.claim(SHIP_MAX_BYTES)
    if (!claim) return false
    const unreadable = claim.segments.reduce((n, s) => n + s.unreadable, 0)
    if (unreadable > 0) log.warn('request log: unreadable journal lines skipped (a torn write at a crash)', { lines: unreadable })
    const rows = claim.rows.map(rowFromJournal)
    try {
      if (rows.length > 0)
        await withTimeout(
          opts.db().then((db) => write(db, rows)),
          timeoutMs,
        )
    } catch (error) {
      await claim.release()
      failed(error)
      return false
    }
    const ended = backoff.succeeded()
    if (ended) log.info('request log: shipping again', { afterFailures: ended.failures, outageS: Math.round(ended.outageMs / 1000) })
    lastStoredAt = Date.now()
    storedSinceStart += rows.length
    // Stored: the segments go (a crash before this ships them again, which stores nothing twice).
    await claim.done()
    return true
  }

  /** Ships until nothing sealed is left or a write fails; one run at a time. */
  function ship(timeoutMs = writeTimeoutMs): Promise<void> {
    if (shipping) return shipping
    if (!backoff.ready()) return Promise.resolve()
    shipping = (async () => {
      while (await shipOnce(timeoutMs)) {
        // catching up: the next claim at once
      }
    })()
      .catch((error) => log.error('request log: shipper failed', { error: briefError(error) }))
      .finally(() => (shipping = null))
    return shipping
  }

  const timer = setInterval(() => {
    const rescan = Date.now() - lastScan >= RESCAN_MS
    if (rescan) lastScan = Date.now()
    if (!stopped && (spool.hasWaiting() || rescan)) void ship()
  }, opts.shipMs ?? SHIP_MS)
  timer.unref()

  function status(): RequestLogWriterStatus {
    const s = spool.status()
    return {
      mode: 'journal',
      pending: s.uncommitted,
      spooledBytes: s.bytes,
      dropped: s.dropped,
      lastDroppedAt: s.lastDroppedAt,
      failures: backoff.failures,
      retryAt: backoff.nextAttemptAt(),
      spool: { state: 'on', ...s },
      shipper: { lagMs: s.oldestEntryAt === null ? 0 : Math.max(0, Date.now() - s.oldestEntryAt), lastStoredAt, storedSinceStart },
    }
  }

  return {
    record(entry: RequestLogEntry) {
      if (stopped) return
      spool.append(toRow(entry, opts.fullIp))
    },
    async flush() {
      await spool.seal()
      if (shipping) await shipping
      backoff.retryNow()
      await ship()
    },
    async stop(deadlineMs = SHUTDOWN_SHIP_MS) {
      stopped = true
      clearInterval(timer)
      const deadline = Date.now() + deadlineMs
      // Everything answered is on disk after this (one commit, one fdatasync).
      await spool.close()
      // Store what we can within the deadline; the rest waits on disk for the next start (or
      // another process on the same directory). Everything is on disk already, so this is a bonus.
      const left = Math.max(1, deadline - Date.now())
      await Promise.race([
        (shipping ?? Promise.resolve()).then(() => {
          backoff.retryNow()
          return ship(Math.max(1, deadline - Date.now()))
        }),
        sleep(left, undefined, { ref: false }),
      ])
      const s = spool.status()
      if (s.segments > 0) log.warn('request log: entries left in the journal for the next start', { bytes: s.bytes, segments: s.segments, dir: s.dir })
    },
    abandon() {
      stopped = true
      clearInterval(timer)
      spool.commitSync()
    },
    pending: () => spool.status().uncommitted,
    status,
  }
}

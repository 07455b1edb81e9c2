import 'server-only'
import { setTimeout as sleep } from 'node:timers/promises'
import path from 'node:path'
import { after } from 'next/server'
import { config, type Config } from '@/lib/config'
import { getReadyDatabase, type Db } from '@/lib/db/client'
import { ensurePrivateDirectory, InsecureDirectoryError } from '@/lib/db/private-directory'
import { setRequestLogSink } from '@/lib/http/request-log'
import { log } from '@/lib/log'
import { processSlot } from '@/lib/process-slot'
import { briefError, toRow, truncateIp } from '@/lib/request-log/row'
import { createDurableRequestLog } from '@/lib/request-log/shipper'
import { createSpool } from '@/lib/request-log/spool'
import { instanceName, orphanSegments } from '@/lib/request-log/instance'
import { DirectoryLockedError, lockDirectory } from '@/lib/db/directory-lock'
import type { RequestLogWriter, RequestLogWriterStatus } from '@/lib/request-log/types'
import { writeRequestLog, type RequestLogRow } from '@/lib/request-log/store'
import { Backoff, withTimeout } from '@/lib/timeout'
import { onShutdown } from '@/lib/shutdown'

// The request log's sinks (dataset `requests`); docs/request-log.md.
//
// Where a writable directory exists (a server, a container with a volume), startRequestLog() runs
// the journal: append first, ship later (lib/request-log/shipper.ts, lib/request-log/spool.ts).
//
// Where none exists (serverless hosting: a read-only file system), this file's memory writer runs
// instead, and every request asks the platform, through Next's after(), to keep the function
// alive until the write that holds its entry has ended. Recording only appends to an in-memory
// buffer, so it never delays a response; the buffer is written in batches at least every FLUSH_MS
// and as soon as it holds BATCH_ROWS entries. A write takes at most WRITE_MAX_ROWS; when the
// buffer holds CONCURRENT_ROWS while a write is in flight, a second write starts beside it
// (WRITE_CONCURRENCY). While the database is down, failed writes back off exponentially up to
// BACKOFF_MAX_MS and entries wait in memory up to MAX_BUFFERED; past that they are dropped
// (counted and logged), and whatever an instance holds when the platform freezes or recycles it is
// lost. An in-memory PGlite without REQUEST_LOG_SPOOL_DIR (tests, a throwaway local run) uses the
// memory writer too, without after().

export { truncateIp }

const FLUSH_MS = 2000
const BATCH_ROWS = 500
const CONCURRENT_ROWS = 5000
const WRITE_MAX_ROWS = 20_000
const WRITE_CONCURRENCY = 2
const MAX_BUFFERED = 20_000
const WRITE_TIMEOUT_MS = 10_000
const BACKOFF_MIN_MS = 1000
const BACKOFF_MAX_MS = 5000
const DROP_LOG_EVERY_MS = 60_000
/** The shutdown flush's own deadline, after the in-flight requests' grace period. */
export const SHUTDOWN_FLUSH_MS = 4000

export type { RequestLogWriter }

export interface RequestLogWriterOptions {
  db: () => Promise<Db>
  write?: (db: Db, rows: RequestLogRow[]) => Promise<unknown>
  fullIp?: boolean
  /** Why there is no journal (shown in health). */
  offReason?: string
  flushMs?: number
  maxBuffered?: number
  writeTimeoutMs?: number
  backoffMinMs?: number
  backoffMaxMs?: number
  /** Writes in flight at most (WRITE_CONCURRENCY). */
  concurrency?: number
}

export function createRequestLogWriter(opts: RequestLogWriterOptions): RequestLogWriter {
  const maxBuffered = opts.maxBuffered ?? MAX_BUFFERED
  const write = opts.write ?? writeRequestLog
  const writeTimeoutMs = opts.writeTimeoutMs ?? WRITE_TIMEOUT_MS
  let buffer: RequestLogRow[] = []
  /** The batches being written: not in `buffer`, not yet acknowledged. */
  const inflight = new Set<RequestLogRow[]>()
  const running = new Set<Promise<void>>()
  const concurrency = Math.max(1, opts.concurrency ?? WRITE_CONCURRENCY)
  const inflightRows = () => [...inflight].flat()
  let dropped = 0
  let lastDroppedAt: number | null = null
  let droppedLogged = 0
  let lastDropLog = 0
  const backoff = new Backoff(opts.backoffMinMs ?? BACKOFF_MIN_MS, opts.backoffMaxMs ?? BACKOFF_MAX_MS)
  let stopped = false
  let lastStoredAt: number | null = null
  let storedSinceStart = 0

  /** Age of the oldest entry not yet stored: the first in flight, else the first buffered. */
  const lagMs = () => {
    const first = [...inflight][0]?.[0] ?? buffer[0]
    return first ? Math.max(0, Date.now() - (first.time as Date).getTime()) : 0
  }

  function countDropped(n: number) {
    if (n <= 0) return
    dropped += n
    lastDroppedAt = Date.now()
    if (Date.now() - lastDropLog >= DROP_LOG_EVERY_MS) {
      lastDropLog = Date.now()
      log.warn('request log: entries dropped (memory buffer full while the database is unavailable)', { dropped, since: dropped - droppedLogged })
      droppedLogged = dropped
    }
  }

  /** Keeps at most maxBuffered rows in memory, the oldest; the rest are counted lost. */
  function trim() {
    const excess = buffer.length - maxBuffered
    if (excess > 0) countDropped(buffer.splice(maxBuffered, excess).length)
  }

  async function attempt(rows: RequestLogRow[], timeoutMs: number): Promise<boolean> {
    try {
      await withTimeout(
        opts.db().then((db) => write(db, rows)),
        timeoutMs,
      )
      const ended = backoff.succeeded()
      if (ended) log.info('request log: writing again', { afterFailures: ended.failures, outageS: Math.round(ended.outageMs / 1000) })
      lastStoredAt = Date.now()
      storedSinceStart += rows.length
      return true
    } catch (error) {
      const wait = backoff.failed()
      log.warn('request log: write failed; entries kept, retrying later', {
        error: briefError(error),
        attempt: backoff.failures,
        retryInS: Math.round(wait / 100) / 10,
        pending: buffer.length + rows.length,
      })
      return false
    }
  }

  async function writeOnce(timeoutMs = writeTimeoutMs, all = false) {
    if (!backoff.ready()) return
    if (buffer.length > 0) {
      const batch = all || buffer.length <= WRITE_MAX_ROWS ? buffer : buffer.slice(0, WRITE_MAX_ROWS)
      buffer = batch === buffer ? [] : buffer.slice(batch.length)
      inflight.add(batch)
      const ok = await attempt(batch, timeoutMs)
      inflight.delete(batch)
      if (!ok) {
        buffer = batch.concat(buffer)
        trim()
      }
      return
    }
  }

  /** Starts a write unless `concurrency` are in flight; resolves when the writes in flight end. */
  function flush(): Promise<void> {
    if (running.size < concurrency) {
      const write: Promise<void> = writeOnce()
        .catch((error) => log.error('request log: flush failed', { error: briefError(error) }))
        .finally(() => running.delete(write))
      running.add(write)
    }
    return Promise.all(running).then(() => undefined)
  }

  const timer = setInterval(() => void flush(), opts.flushMs ?? FLUSH_MS)
  timer.unref()

  return {
    record(entry) {
      if (stopped) return
      if (buffer.length >= maxBuffered) return countDropped(1)
      buffer.push(toRow(entry, opts.fullIp))
      if (backoff.ready() && (running.size === 0 ? buffer.length >= BATCH_ROWS : buffer.length >= CONCURRENT_ROWS && running.size < concurrency)) void flush()
    },
    flush: async () => {
      await Promise.all(running)
      await flush()
    },
    async stop(deadlineMs = SHUTDOWN_FLUSH_MS) {
      stopped = true
      clearInterval(timer)
      const deadline = Date.now() + deadlineMs
      const left = () => Math.max(1, deadline - Date.now())
      // A write in flight may still be acknowledged in time; one more attempt for the rest.
      if (running.size) await Promise.race([Promise.all(running), sleep(left(), undefined, { ref: false })])
      if (running.size === 0 && buffer.length > 0) {
        backoff.retryNow()
        await writeOnce(left(), true)
      }
      const unwritten = inflightRows().concat(buffer)
      buffer = []
      inflight.clear()
      countDropped(unwritten.length)
      if (unwritten.length > 0) log.warn('request log: entries not written before shutdown (no journal)', { entries: unwritten.length, dropped })
      else if (dropped > 0) log.warn('request log: entries dropped while the database was unavailable', { dropped })
    },
    abandon() {
      stopped = true
      clearInterval(timer)
      const unwritten = inflightRows().concat(buffer)
      buffer = []
      inflight.clear()
      countDropped(unwritten.length)
    },
    pending: () => buffer.length,
    status: () => ({
      mode: 'memory',
      pending: buffer.length + inflightRows().length,
      spooledBytes: 0,
      dropped,
      lastDroppedAt,
      failures: backoff.failures,
      retryAt: backoff.nextAttemptAt(),
      spool: { state: 'off', reason: opts.offReason ?? 'no journal directory' },
      shipper: { lagMs: lagMs(), lastStoredAt, storedSinceStart },
    }),
  }
}

/** The journal directory: REQUEST_LOG_SPOOL_DIR, else beside the PGlite data; none for an in-memory PGlite. Each instance works in a subdirectory (instanceName). */
export function spoolDirOf(c: Pick<Config, 'REQUEST_LOG_SPOOL_DIR' | 'PGLITE_DIR'>): string | null {
  if (c.REQUEST_LOG_SPOOL_DIR) return path.resolve(c.REQUEST_LOG_SPOOL_DIR)
  if (c.PGLITE_DIR.startsWith('memory://')) return null
  return path.join(path.dirname(path.resolve(c.PGLITE_DIR)), 'request-log-spool')
}

const writerSlot = processSlot<RequestLogWriter>('request-log-writer')

/** Registers the database sink for this process (once) and flushes it on shutdown. */
export function startRequestLog(): RequestLogWriter {
  const started = writerSlot.get()
  if (started) return started
  const db = async () => (await getReadyDatabase()).db
  const dir = spoolDirOf(config)
  let writer: RequestLogWriter | null = null
  let offReason = dir ? 'REQUEST_LOG_SPOOL_MAX_MB=0' : 'in-memory PGlite and no REQUEST_LOG_SPOOL_DIR'
  // After a failed journal, serverless: each request keeps the function alive until its write ended.
  let viaAfter = false
  if (dir && config.REQUEST_LOG_SPOOL_MAX_MB > 0) {
    // This instance's own directory (lib/request-log/instance.ts); a second live process on it stops start-up here.
    const own = path.join(dir, instanceName(config))
    try {
      // The shared parent holds the instances' lock files and what a gone instance left: private too.
      ensurePrivateDirectory(dir)
      lockDirectory(own, 'journal')
      const spool = createSpool(own, config.REQUEST_LOG_SPOOL_MAX_MB * 1024 * 1024, { orphans: () => orphanSegments(dir, own) })
      writer = createDurableRequestLog({ spool, db, fullIp: config.LOG_FULL_IP })
    } catch (error) {
      // A directory others can write, or one another live process holds, is not a journal to fall back from: start-up stops, saying how to fix it.
      if (error instanceof InsecureDirectoryError || error instanceof DirectoryLockedError) throw error
      // A read-only file system (serverless hosting).
      offReason = `directory not writable: ${briefError(error)}`
      viaAfter = true
      log.warn(
        'request log: no journal (directory not writable); each entry is written after its response, and entries the database cannot take are kept in memory only',
        { dir, error: briefError(error) },
      )
    }
  }
  const w = writer ?? createRequestLogWriter({ db, fullIp: config.LOG_FULL_IP, offReason })
  writerSlot.set(w)
  setRequestLogSink((entry) => {
    w.record(entry)
    if (viaAfter) {
      try {
        // The platform keeps the invocation alive until the write holding this entry has ended.
        after(() => w.flush())
      } catch {
        // outside a request's scope (a scheduled job): the writer's timer writes it
      }
    }
  })
  onShutdown(
    () => w.stop(),
    () => w.abandon(),
  )
  return w
}

/** This process's writer, if started. */
export const requestLogWriter = (): RequestLogWriter | undefined => writerSlot.get()

/** One line for the start-up summary (server.mjs): where entries go first, the budget, what waits. */
export function describeRequestLog(): string {
  const writer = requestLogWriter()
  const dir = spoolDirOf(config)
  const budget = `${config.REQUEST_LOG_SPOOL_MAX_MB} MB budget`
  if (!writer)
    return dir && config.REQUEST_LOG_SPOOL_MAX_MB > 0
      ? `journal ${dir} (${budget}), starting`
      : 'in memory only (no journal directory): entries the database cannot take are kept in memory, then dropped'
  const s = writer.status()
  if (s.spool.state === 'off') return `in memory only (journal off: ${s.spool.reason}); ${s.dropped} dropped since start`
  const oldest = s.spool.oldestEntryAt === null ? 'nothing waiting' : `oldest entry ${new Date(s.spool.oldestEntryAt).toISOString()}`
  return `journal ${s.spool.dir} (${(s.spool.bytes / 1e6).toFixed(1)} of ${budget}, ${s.spool.segments} segments, ${oldest}; ${s.spool.dropped} dropped since ${s.spool.droppedSince}), shipper lag ${(s.shipper.lagMs / 1000).toFixed(1)} s`
}

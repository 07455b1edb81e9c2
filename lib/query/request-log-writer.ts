import 'server-only'
import path from 'node:path'
import ipaddr from 'ipaddr.js'
import { config, type Config } from '@/lib/config'
import { getReadyDatabase, type Db } from '@/lib/db/client'
import { setRequestLogSink, type RequestLogEntry } from '@/lib/http/request-log'
import { log } from '@/lib/log'
import { createSpool, type Spool, type SpoolRow } from '@/lib/query/request-log-spool'
import { writeRequestLog, type RequestLogRow } from '@/lib/query/request-log-store'
import { withTimeout } from '@/lib/timeout'
import { onShutdown } from '@/lib/shutdown'

// The database sink of the request log (dataset `requests`). Recording only appends to an
// in-memory buffer, so it never delays a response; the buffer is written in batches at least every
// FLUSH_MS and as soon as it holds BATCH_ROWS entries. A write takes at most WRITE_MAX_ROWS; when
// the buffer holds CONCURRENT_ROWS while a write is in flight (the load outruns one writer), a
// second write starts beside it (WRITE_CONCURRENCY), so copying one batch overlaps committing the
// other.
//
// While the database is down or hangs, each write has a deadline and failed writes back off
// exponentially (one short log line per attempt), so the request path costs the same as when the
// database is up. Entries wait in the buffer up to MAX_BUFFERED; past that they go to the local
// spool (lib/query/request-log-spool.ts) until its disk budget is spent, and only then are dropped
// (counted and logged). Spooled entries are written back once the database answers again, by this
// process or the next one. On shutdown the buffer gets one last write within SHUTDOWN_FLUSH_MS;
// whatever is not acknowledged by then is spooled.

const FLUSH_MS = 2000
const BATCH_ROWS = 500
const CONCURRENT_ROWS = 5000
const WRITE_MAX_ROWS = 20_000
const WRITE_CONCURRENCY = 2
const MAX_BUFFERED = 20_000
const WRITE_TIMEOUT_MS = 10_000
const BACKOFF_MIN_MS = 1000
const BACKOFF_MAX_MS = 60_000
const DROP_LOG_EVERY_MS = 60_000
/** The shutdown flush's own deadline, after the in-flight requests' grace period. */
export const SHUTDOWN_FLUSH_MS = 4000

/** The client's network, not the host: /24 for IPv4, /48 for IPv6 (IPv4-mapped IPv6 counts as IPv4). */
export function truncateIp(ip: string, full = false): string | null {
  if (!ipaddr.isValid(ip)) return null
  let addr = ipaddr.parse(ip)
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address()
  if (full) return addr.toString()
  const bytes = addr.toByteArray()
  const keep = addr.kind() === 'ipv4' ? 3 : 6
  const masked = bytes.map((b, i) => (i < keep ? b : 0))
  return ipaddr.fromByteArray(masked).toString()
}

type Row = RequestLogRow

export interface RequestLogWriterStatus {
  /** Entries in memory waiting to be written. */
  pending: number
  /** Bytes waiting in the spool. */
  spooledBytes: number
  /** Entries lost since start (spool full or absent). */
  dropped: number
  /** Consecutive failed writes; 0 when the last write succeeded. */
  failures: number
  /** Epoch ms of the next write attempt while backing off, else null. */
  retryAt: number | null
}

export interface RequestLogWriter {
  record(entry: RequestLogEntry): void
  flush(): Promise<void>
  /** Last write within `deadlineMs`, then spools what is left. */
  stop(deadlineMs?: number): Promise<void>
  /** Spools the buffer synchronously (an exit that cannot wait). */
  abandon(): void
  /** Entries waiting in memory. */
  pending(): number
  status(): RequestLogWriterStatus
}

export interface RequestLogWriterOptions {
  db: () => Promise<Db>
  write?: (db: Db, rows: Row[]) => Promise<unknown>
  spool?: Spool | null
  fullIp?: boolean
  flushMs?: number
  maxBuffered?: number
  writeTimeoutMs?: number
  backoffMinMs?: number
  backoffMaxMs?: number
  /** Writes in flight at most (WRITE_CONCURRENCY). */
  concurrency?: number
}

/** The database's own words, short: drivers put the whole statement and its parameters in the message. */
function briefError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
  const text = cause instanceof Error ? `${(cause as NodeJS.ErrnoException).code ? `${(cause as NodeJS.ErrnoException).code}: ` : ''}${cause.message}` : String(cause)
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

const toSpoolRow = (row: Row): SpoolRow => ({ ...row, time: row.time instanceof Date ? row.time.toISOString() : row.time })
const fromSpoolRow = (row: SpoolRow): Row => ({ ...(row as Row), time: new Date(row.time as string) })

export function createRequestLogWriter(opts: RequestLogWriterOptions): RequestLogWriter {
  const maxBuffered = opts.maxBuffered ?? MAX_BUFFERED
  const write = opts.write ?? writeRequestLog
  const writeTimeoutMs = opts.writeTimeoutMs ?? WRITE_TIMEOUT_MS
  const backoffMinMs = opts.backoffMinMs ?? BACKOFF_MIN_MS
  const backoffMaxMs = opts.backoffMaxMs ?? BACKOFF_MAX_MS
  const spool = opts.spool ?? null
  let buffer: Row[] = []
  /** The batches being written: not in `buffer`, not yet acknowledged. */
  const inflight = new Set<Row[]>()
  const running = new Set<Promise<void>>()
  const concurrency = Math.max(1, opts.concurrency ?? WRITE_CONCURRENCY)
  const inflightRows = () => [...inflight].flat()
  let spilling: Promise<void> = Promise.resolve()
  let dropped = 0
  let droppedLogged = 0
  let lastDropLog = 0
  let failures = 0
  let failingSince = 0
  let retryAt = 0
  let stopped = false

  const toRow = (e: RequestLogEntry): Row => ({
    time: e.time,
    requestId: e.requestId,
    method: e.method,
    route: e.route,
    query: e.query,
    status: e.status,
    durationMs: e.durationMs,
    clientIp: truncateIp(e.clientIp, opts.fullIp),
    country: e.country,
    userAgent: e.userAgent?.slice(0, 1000) ?? null,
    referrer: e.referrer?.slice(0, 2000) ?? null,
    apiKeyPresent: e.apiKeyPresent,
    rateLimited: e.rateLimited,
    mcpTool: e.mcpTool,
  })

  function countDropped(n: number) {
    if (n <= 0) return
    dropped += n
    if (Date.now() - lastDropLog >= DROP_LOG_EVERY_MS) {
      lastDropLog = Date.now()
      log.warn('request log: entries dropped (buffer full, spool budget spent or no spool)', { dropped, since: dropped - droppedLogged })
      droppedLogged = dropped
    }
  }

  /** Moves rows out of memory into the spool (or counts them lost without one). */
  function spill(rows: Row[]) {
    if (rows.length === 0) return
    if (!spool) return countDropped(rows.length)
    spilling = spilling
      .then(() => spool.append(rows.map(toSpoolRow)))
      .then(countDropped, (error) => {
        log.error('request log: spool write failed', { dir: spool.dir, error: briefError(error) })
        countDropped(rows.length)
      })
  }

  /** Keeps at most maxBuffered rows in memory, the newest; the rest are spilled. */
  function trim() {
    const excess = buffer.length - maxBuffered
    if (excess > 0) spill(buffer.splice(0, excess))
  }

  async function attempt(rows: Row[], timeoutMs: number): Promise<boolean> {
    try {
      await withTimeout(
        opts.db().then((db) => write(db, rows)),
        timeoutMs,
      )
      if (failures > 0) log.info('request log: writing again', { afterFailures: failures, outageS: Math.round((Date.now() - failingSince) / 1000) })
      failures = 0
      retryAt = 0
      return true
    } catch (error) {
      if (failures === 0) failingSince = Date.now()
      failures++
      const wait = Math.min(backoffMaxMs, backoffMinMs * 2 ** (failures - 1)) * (0.8 + Math.random() * 0.4)
      retryAt = Date.now() + wait
      log.warn('request log: write failed; entries kept, retrying later', {
        error: briefError(error),
        attempt: failures,
        retryInS: Math.round(wait / 100) / 10,
        pending: buffer.length + rows.length,
        spooledBytes: spool?.bytes() ?? 0,
      })
      return false
    }
  }

  async function writeOnce(timeoutMs = writeTimeoutMs, all = false) {
    if (Date.now() < retryAt) return
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
    if (running.size > 0) return // the spool is written back while no other write is in flight
    // Memory is empty: write back what was spooled (the backoff above paces attempts while it fails).
    if (spool?.hasWaiting() && !stopped) {
      await spilling
      const segment = await spool.claim().catch((error) => {
        log.error('request log: spool read failed', { dir: spool.dir, error: briefError(error) })
        return null
      })
      if (!segment) return
      if (segment.unreadable > 0) log.warn('request log: unreadable spool lines skipped', { lines: segment.unreadable })
      if (await attempt(segment.rows.map(fromSpoolRow), timeoutMs)) {
        await segment.done()
        log.info('request log: spooled entries written', { rows: segment.rows.length })
      } else await segment.release()
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
      if (buffer.length >= maxBuffered) {
        if (!spool) return countDropped(1)
        // Spill in bulk: one fsync per maxBuffered entries, not one per request.
        spill(buffer)
        buffer = []
      }
      buffer.push(toRow(entry))
      if (Date.now() >= retryAt && (running.size === 0 ? buffer.length >= BATCH_ROWS : buffer.length >= CONCURRENT_ROWS && running.size < concurrency)) void flush()
    },
    flush: async () => {
      await Promise.all(running)
      await flush()
      await spilling
    },
    async stop(deadlineMs = SHUTDOWN_FLUSH_MS) {
      stopped = true
      clearInterval(timer)
      const deadline = Date.now() + deadlineMs
      const left = () => Math.max(1, deadline - Date.now())
      // A write in flight may still be acknowledged in time; one more attempt for the rest.
      if (running.size) await Promise.race([Promise.all(running), sleep(left())])
      if (running.size === 0 && buffer.length > 0) {
        retryAt = 0
        await writeOnce(left(), true)
      }
      const unwritten = inflightRows().concat(buffer)
      buffer = []
      inflight.clear()
      spill(unwritten)
      await spilling
      if (unwritten.length > 0)
        log.warn('request log: entries not written before shutdown', { entries: unwritten.length, spooledTo: spool?.dir ?? null, dropped })
      else if (dropped > 0) log.warn('request log: entries dropped while the database was unavailable', { dropped })
    },
    abandon() {
      stopped = true
      clearInterval(timer)
      const unwritten = inflightRows().concat(buffer).map(toSpoolRow)
      buffer = []
      inflight.clear()
      if (spool && unwritten.length) countDropped(spool.appendSync(unwritten))
      else countDropped(unwritten.length)
    },
    pending: () => buffer.length,
    status: () => ({ pending: buffer.length + inflightRows().length, spooledBytes: spool?.bytes() ?? 0, dropped, failures, retryAt: retryAt > Date.now() ? retryAt : null }),
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref())

/** The spool directory: REQUEST_LOG_SPOOL_DIR, else beside the PGlite data; none for an in-memory PGlite. */
export function spoolDirOf(c: Pick<Config, 'REQUEST_LOG_SPOOL_DIR' | 'PGLITE_DIR'>): string | null {
  if (c.REQUEST_LOG_SPOOL_DIR) return path.resolve(c.REQUEST_LOG_SPOOL_DIR)
  if (c.PGLITE_DIR.startsWith('memory://')) return null
  return path.join(path.dirname(path.resolve(c.PGLITE_DIR)), 'request-log-spool')
}

const SLOT = Symbol.for('utility-api.request-log-writer')

/** Registers the database sink for this process (once) and flushes it on shutdown. */
export function startRequestLog(): RequestLogWriter {
  const slot = globalThis as unknown as Record<symbol, RequestLogWriter | undefined>
  if (slot[SLOT]) return slot[SLOT]
  const dir = spoolDirOf(config)
  let spool: Spool | null = null
  if (dir && config.REQUEST_LOG_SPOOL_MAX_MB > 0) {
    try {
      spool = createSpool(dir, config.REQUEST_LOG_SPOOL_MAX_MB * 1024 * 1024)
    } catch (error) {
      // A read-only file system (serverless): the log still works, without the spool's safety net.
      log.warn('request log: no spool (directory not writable); entries the database cannot take are dropped', { dir, error: briefError(error) })
    }
  }
  const writer = createRequestLogWriter({ db: async () => (await getReadyDatabase()).db, fullIp: config.LOG_FULL_IP, spool })
  slot[SLOT] = writer
  setRequestLogSink((entry) => writer.record(entry))
  onShutdown(() => writer.stop(), () => writer.abandon())
  return writer
}

/** This process's writer, if started. */
export const requestLogWriter = (): RequestLogWriter | undefined => (globalThis as unknown as Record<symbol, RequestLogWriter | undefined>)[SLOT]

import 'server-only'
import ipaddr from 'ipaddr.js'
import { config } from '@/lib/config'
import { getReadyDatabase, type Db } from '@/lib/db/client'
import { setRequestLogSink, type RequestLogEntry } from '@/lib/http/request-log'
import { log } from '@/lib/log'
import { writeRequestLog, type RequestLogRow } from '@/lib/query/request-log-store'
import { onShutdown } from '@/lib/shutdown'

// The database sink of the request log (dataset `requests`). Recording only appends to an
// in-memory buffer, so it never delays a response; the buffer is written in batches at least every
// FLUSH_MS, as soon as it holds BATCH_ROWS entries, and once more on shutdown. While the database is
// unreachable, entries wait in the buffer up to MAX_BUFFERED, after which the oldest are dropped
// (and counted in the log).

const FLUSH_MS = 2000
const BATCH_ROWS = 500
const MAX_BUFFERED = 20_000

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

export interface RequestLogWriter {
  record(entry: RequestLogEntry): void
  flush(): Promise<void>
  stop(): Promise<void>
  /** Entries waiting to be written. */
  pending(): number
}

export function createRequestLogWriter(opts: { db: () => Promise<Db>; fullIp?: boolean; flushMs?: number; maxBuffered?: number }): RequestLogWriter {
  const maxBuffered = opts.maxBuffered ?? MAX_BUFFERED
  let buffer: (RequestLogRow)[] = []
  let running: Promise<void> | null = null
  let dropped = 0
  let failures = 0

  const toRow = (e: RequestLogEntry): RequestLogRow => ({
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

  async function writeOnce() {
    if (buffer.length === 0) return
    const batch = buffer
    buffer = []
    try {
      const db = await opts.db()
      await writeRequestLog(db, batch)
      if (failures > 0) log.info('request log: writing again', { afterFailures: failures })
      failures = 0
    } catch (error) {
      // Keep the entries for the next attempt, newest last; drop the oldest beyond the cap.
      buffer = batch.concat(buffer)
      const excess = buffer.length - maxBuffered
      if (excess > 0) {
        buffer.splice(0, excess)
        dropped += excess
      }
      if (failures++ % 30 === 0)
        log.warn('request log: write failed; entries kept for retry', { error: error instanceof Error ? error.message : String(error), pending: buffer.length, dropped })
    }
  }

  function flush(): Promise<void> {
    running ??= writeOnce().finally(() => (running = null))
    return running
  }

  const timer = setInterval(() => void flush(), opts.flushMs ?? FLUSH_MS)
  timer.unref()

  return {
    record(entry) {
      if (buffer.length >= maxBuffered) {
        dropped++
        return
      }
      buffer.push(toRow(entry))
      if (buffer.length >= BATCH_ROWS && !running) void flush()
    },
    flush: async () => {
      await running
      await flush()
    },
    async stop() {
      clearInterval(timer)
      await running
      await flush()
      if (dropped > 0) log.warn('request log: entries dropped while the database was unavailable', { dropped })
    },
    pending: () => buffer.length,
  }
}

/** Registers the database sink for this process (once) and flushes it on shutdown. */
export function startRequestLog(): RequestLogWriter {
  const slot = globalThis as unknown as Record<symbol, RequestLogWriter | undefined>
  const key = Symbol.for('utility-api.request-log-writer')
  if (slot[key]) return slot[key]
  const writer = createRequestLogWriter({ db: async () => (await getReadyDatabase()).db, fullIp: config.LOG_FULL_IP })
  slot[key] = writer
  setRequestLogSink((entry) => writer.record(entry))
  onShutdown(() => writer.stop())
  return writer
}

import 'server-only'
import ipaddr from 'ipaddr.js'
import { causeMessage, innerError } from '@/lib/errors'
import type { RequestLogEntry } from '@/lib/http/request-log'
import type { RequestLogRow } from '@/lib/request-log/store'

// The one mapping of the request log: an answered request's entry (lib/http/request-log.ts) to the
// row the table stores. It is made when the entry is recorded, before the journal, so no full client
// address reaches the disk; from there on the row is what the journal holds, one JSON line each,
// and what the store writes.

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

/** The client's network instead of its address (unless `fullIp`), long headers cut. */
export function toRow(e: RequestLogEntry, fullIp = false): RequestLogRow {
  return {
    time: e.time,
    requestId: e.requestId,
    method: e.method,
    route: e.route,
    query: e.query,
    status: e.status,
    durationMs: e.durationMs,
    clientIp: truncateIp(e.clientIp, fullIp),
    country: e.country,
    userAgent: e.userAgent?.slice(0, 1000) ?? null,
    referrer: e.referrer?.slice(0, 2000) ?? null,
    apiKeyPresent: e.apiKeyPresent,
    rateLimited: e.rateLimited,
    mcpTool: e.mcpTool,
  }
}

/** A journal line back to its row: JSON keeps every field as it was but the time, which it holds as ISO text. */
export const rowFromJournal = (line: unknown): RequestLogRow => {
  const row = line as Omit<RequestLogRow, 'time'> & { time: string }
  return { ...row, time: new Date(row.time) }
}

/** The database's own words, short: drivers put the whole statement and its parameters in the message. */
export function briefError(error: unknown): string {
  const inner = innerError(error)
  const code = inner instanceof Error ? (inner as NodeJS.ErrnoException).code : undefined
  const text = `${code ? `${code}: ` : ''}${causeMessage(error)}`
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

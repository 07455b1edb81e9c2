import 'server-only'
import ipaddr from 'ipaddr.js'
import { causeMessage, innerError } from '@/lib/errors'
import type { RequestLogEntry } from '@/lib/http/request-log'
import type { RequestLogRow } from '@/lib/request-log/store'

// An answered request's entry as the row the request log stores, and back from its journal line.

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

/** A journal line (time as ISO text) back to a row. */
export const fromSpoolRow = (row: Record<string, unknown>): RequestLogRow => ({ ...(row as RequestLogRow), time: new Date(row.time as string) })

/** The database's own words, short: drivers put the whole statement and its parameters in the message. */
export function briefError(error: unknown): string {
  const inner = innerError(error)
  const code = inner instanceof Error ? (inner as NodeJS.ErrnoException).code : undefined
  const text = `${code ? `${code}: ` : ''}${causeMessage(error)}`
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

import ipaddr from 'ipaddr.js'
import { config, type Config } from '@/lib/config'
import { CONNECTION_IP_HEADER } from '@/lib/http/headers'
import { processSlot } from '@/lib/process-slot'

// server.mjs sets this slot (by its name) before the application loads.
const stamped = processSlot<boolean>('connection-ip-stamped')

/** True when this process was started by server.mjs, so CONNECTION_IP_HEADER can be believed. */
export const connectionIpIsStamped = () => stamped.get() === true

/** An address as the rest of the service spells it (IPv4-mapped IPv6 as IPv4, IPv6 compressed), or null. */
function normalise(value: string | null | undefined): string | null {
  if (!value) return null
  const ip = value.trim()
  if (!ipaddr.isValid(ip)) return null
  // ipaddr.isValid also takes the shorthand IPv4 forms inet_aton does ("1", "0x7f.1"); a proxy never writes those.
  if (!ip.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(ip)) return null
  return ipaddr.process(ip).toString()
}

/**
 * One hop of a forwarding header as an address, or null when it is not one. X-Forwarded-For
 * carries bare addresses (some proxies add a port or brackets); RFC 7239's Forwarded carries
 * `for=` values: `192.0.2.60`, `"192.0.2.60:8080"`, `"[2001:db8::17]:4711"`, `unknown` or an
 * obfuscated `_name` (the last two are not addresses).
 */
function hopAddress(raw: string): string | null {
  let v = raw.trim()
  if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1')
  if (v.startsWith('[')) {
    const end = v.indexOf(']')
    return end > 0 && (end === v.length - 1 || /^:\d+$/.test(v.slice(end + 1))) ? normalise(v.slice(1, end)) : null
  }
  const port = /^([\d.]+):\d+$/.exec(v)
  return normalise(port ? port[1] : v)
}

/** Splits on `sep` outside double-quoted strings (a quoted Forwarded value may contain either separator). */
function splitOutsideQuotes(s: string, sep: string): string[] {
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (quoted && c === '\\' && i + 1 < s.length) {
      current += c + s[++i]
      continue
    }
    if (c === '"') quoted = !quoted
    if (c === sep && !quoted) {
      parts.push(current)
      current = ''
    } else current += c
  }
  parts.push(current)
  return parts
}

/** The hops a forwarding header lists, client side first; null for a hop that is not an address. */
export function forwardedHops(header: 'x-forwarded-for' | 'forwarded', value: string): (string | null)[] {
  if (header === 'x-forwarded-for') return value.split(',').map(hopAddress)
  return splitOutsideQuotes(value, ',').map((element) => {
    const pair = splitOutsideQuotes(element, ';')
      .map((p) => p.trim())
      .find((p) => /^for\s*=/i.test(p))
    return pair ? hopAddress(pair.slice(pair.indexOf('=') + 1)) : null
  })
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

const parsedProxies = new WeakMap<readonly string[], Range[]>()

/** TRUSTED_PROXIES as ranges (config checked each entry at start-up); a bare address is a /32 or /128. */
function proxyRanges(entries: readonly string[]): Range[] {
  let ranges = parsedProxies.get(entries)
  if (!ranges) {
    ranges = entries.map((e) => {
      if (e.includes('/')) {
        const [addr, bits] = ipaddr.parseCIDR(e)
        return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
          ? [(addr as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)]
          : [addr, bits]
      }
      const addr = ipaddr.process(e)
      return [addr, addr.kind() === 'ipv4' ? 32 : 128]
    })
    parsedProxies.set(entries, ranges)
  }
  return ranges
}

function isTrustedProxy(ip: string, ranges: Range[]): boolean {
  const addr = ipaddr.process(ip)
  return ranges.some(([range, bits]) => range.kind() === addr.kind() && addr.match(range, bits))
}

export interface ClientIpSettings {
  header: Config['TRUSTED_IP_HEADER']
  /** TRUSTED_PROXIES: addresses and CIDRs of the proxies in front; empty means "one proxy, whatever its address". */
  proxies: readonly string[]
}

const fromConfig = (): ClientIpSettings => ({ header: config.TRUSTED_IP_HEADER, proxies: config.TRUSTED_PROXIES })

/**
 * The client's address for rate limiting and logs.
 *
 * Without TRUSTED_IP_HEADER: the connection's address (stamped by server.mjs), never a header.
 * With it, the header's answer, read so that a client cannot choose it:
 * - X-Forwarded-For and Forwarded list the hops, and each proxy appends the address it saw, so only
 *   the right-hand end is written by proxies: the client is the right-most hop that is not a
 *   trusted proxy (TRUSTED_PROXIES), or, without that list, the right-most hop (one proxy). The
 *   left-most entry is whatever the client sent and is never used.
 * - X-Real-IP and CF-Connecting-IP hold one address, which the proxy overwrites.
 * - With TRUSTED_PROXIES, a request whose connection does not come from one of them did not pass
 *   a proxy of ours: its headers are ignored and the connection's address is the client.
 * A hop that is not an address (`unknown`, a typo) ends the walk: the nearest address known good
 * (the proxy that wrote it, else the connection) stands in for the client.
 */
export function clientIpFrom(headers: Headers, settings: ClientIpSettings = fromConfig()): string {
  const peer = connectionIpIsStamped() ? normalise(headers.get(CONNECTION_IP_HEADER)) : null
  const { header, proxies } = settings
  if (!header) return peer ?? 'unknown'
  const ranges = proxyRanges(proxies)
  if (ranges.length > 0 && peer && !isTrustedProxy(peer, ranges)) return peer
  const raw = headers.get(header)
  if (!raw?.trim()) return peer ?? 'unknown'
  if (header === 'x-real-ip' || header === 'cf-connecting-ip') return normalise(raw) ?? peer ?? 'unknown'
  const hops = forwardedHops(header, raw)
  let nearest = peer
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]
    if (hop === null) return nearest ?? 'unknown'
    if (ranges.length === 0 || !isTrustedProxy(hop, ranges)) return hop
    nearest = hop
  }
  // Every hop is a trusted proxy: the request started inside the trusted network, at the first one.
  return nearest ?? 'unknown'
}

/**
 * The rate-limit bucket of a client address: the address itself for IPv4, its /64 for IPv6 (one
 * subscriber usually holds a whole /64, so counting single IPv6 addresses would let one client
 * rotate through 2^64 buckets). The request log keeps less still: /24 and /48 (lib/request-log/row.ts).
 */
export function addressBucket(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip
  const addr = ipaddr.process(ip)
  if (addr.kind() === 'ipv4') return addr.toString()
  const bytes = addr.toByteArray().map((b, i) => (i < 8 ? b : 0))
  return `${ipaddr.fromByteArray(bytes).toString()}/64`
}

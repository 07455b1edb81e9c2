import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

// Strict address parsing. net.isIP() decides what is an address: ipaddr.js alone would accept
// legacy forms (`01.2.3.4` read as octal, `0x7f.1` as 127.0.0.1) that the caller almost certainly
// did not mean. ipaddr.js is then used only to classify the range.

export type ParsedAddress = { ok: true; address: string; version: 4 | 6 } | { ok: false; reason: string }

/** Ranges ip-api has data for; everything else is answered locally. */
const PUBLIC_RANGES = new Set(['unicast', '6to4', 'teredo'])

const RANGE_TEXT: Record<string, string> = {
  private: 'a private address (RFC 1918)',
  uniqueLocal: 'a unique local address (RFC 4193, the IPv6 private range)',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'in the shared carrier-grade NAT range (RFC 6598)',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: 'in a reserved or documentation range',
  benchmarking: 'in the benchmarking range (RFC 5180)',
  discard: 'in the discard-only range (RFC 6666)',
  rfc6052: 'a NAT64 translated address (RFC 6052)',
  rfc6145: 'an IPv4-translated address (RFC 6145)',
  deprecatedSiteLocal: 'a deprecated site-local address',
}

/**
 * Parses one address exactly as written (surrounding whitespace aside). IPv4-mapped IPv6
 * (`::ffff:8.8.8.8`) becomes the IPv4 address it carries; IPv6 is returned in its canonical form.
 */
export function parseAddress(input: string): ParsedAddress {
  const text = input.trim()
  if (text.includes('%')) return { ok: false, reason: `"${input}" carries an IPv6 zone id; give the address without it.` }
  if (text.includes('/')) return { ok: false, reason: `"${input}" is a range; give a single IP address.` }
  const version = isIP(text)
  if (version === 0) return { ok: false, reason: `"${input}" is not a valid IPv4 or IPv6 address.` }
  let parsed = ipaddr.parse(text)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  const range = parsed.range()
  const address = parsed.toString()
  if (!PUBLIC_RANGES.has(range)) {
    const what = RANGE_TEXT[range] ?? `in the special-purpose range "${range}"`
    return { ok: false, reason: `${address} is ${what}; it has no public location or network data.` }
  }
  return { ok: true, address, version: parsed.kind() === 'ipv4' ? 4 : 6 }
}

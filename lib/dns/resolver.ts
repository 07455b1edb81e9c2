import 'server-only'
import { isIP } from 'node:net'
import * as dnsPacket from 'dns-packet'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { cached } from '@/lib/upstream/cache'
import { upstreamFetch, UpstreamMalformed } from '@/lib/upstream/http'

// DNS over HTTPS (RFC 8484 wire format) to DOH_URL. Node 20's resolver exposes neither the DNSSEC
// AD flag nor TLSA, so every lookup of the service goes through here.

export type RecordType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'NS' | 'PTR' | 'SOA' | 'CAA' | 'TLSA' | 'DS' | 'DNSKEY'

export type RecordData =
  | { type: 'A' | 'AAAA' | 'CNAME' | 'NS' | 'PTR'; value: string }
  | { type: 'MX'; priority: number; exchange: string }
  | { type: 'TXT'; value: string }
  | { type: 'CAA'; flags: number; tag: string; value: string }
  | { type: 'TLSA'; usage: number; selector: number; matchingType: number; data: string }
  | { type: 'SOA'; mname: string; rname: string; serial: number }
  | { type: 'DS' | 'DNSKEY'; value: string }

export type DnsRecord = RecordData & { name: string; ttl: number }

export interface DnsResult {
  name: string
  type: RecordType
  /** NOERROR, NXDOMAIN, SERVFAIL, … as the resolver answered. */
  rcode: string
  /** The resolver validated every record in the answer with DNSSEC (AD flag). */
  authenticated: boolean
  /** Records of the requested type (CNAMEs the resolver followed are in `chain`). */
  records: DnsRecord[]
  chain: DnsRecord[]
}

const UPSTREAM = 'DNS resolver'
const DNS_CACHE_S = 60
const trimDot = (s: string) => s.replace(/\.$/, '').toLowerCase()

function toRecord(answer: dnsPacket.Answer): DnsRecord | null {
  const base = { name: trimDot(answer.name), ttl: 'ttl' in answer ? (answer.ttl ?? 0) : 0 }
  const data = (answer as { data?: unknown }).data
  switch (answer.type) {
    case 'A':
    case 'AAAA':
      return { ...base, type: answer.type, value: String(data) }
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return { ...base, type: answer.type, value: trimDot(String(data)) }
    case 'MX': {
      const mx = data as { preference: number; exchange: string }
      return { ...base, type: 'MX', priority: mx.preference, exchange: trimDot(mx.exchange) }
    }
    case 'TXT': {
      // A long TXT record arrives as several character-strings: join them with no separator.
      const chunks = (Array.isArray(data) ? data : [data]) as (Buffer | string)[]
      return { ...base, type: 'TXT', value: chunks.map((c) => (typeof c === 'string' ? c : c.toString('utf8'))).join('') }
    }
    case 'CAA': {
      const caa = data as { flags: number; tag: string; value: string }
      return { ...base, type: 'CAA', flags: caa.flags, tag: caa.tag, value: caa.value }
    }
    case 'TLSA': {
      const t = data as { usage: number; selector: number; matchingType: number; certificate: Buffer }
      return { ...base, type: 'TLSA', usage: t.usage, selector: t.selector, matchingType: t.matchingType, data: t.certificate.toString('hex') }
    }
    case 'SOA': {
      const soa = data as { mname: string; rname: string; serial: number }
      return { ...base, type: 'SOA', mname: trimDot(soa.mname), rname: trimDot(soa.rname), serial: soa.serial }
    }
    case 'DS':
    case 'DNSKEY':
      return { ...base, type: answer.type, value: JSON.stringify(data, (_k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v)) }
    default:
      return null
  }
}

async function query(name: string, type: RecordType): Promise<DnsResult> {
  const message = dnsPacket.encode({
    type: 'query',
    id: 0, // RFC 8484 §4.1: id 0 keeps answers cache-friendly
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type, name, class: 'IN' }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: dnsPacket.DNSSEC_OK } as dnsPacket.Answer],
  })
  const res = await upstreamFetch(UPSTREAM, config.DOH_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/dns-message', accept: 'application/dns-message' },
    body: message,
    // DNS over HTTP POST is safe to repeat.
    retries: config.UPSTREAM_RETRIES,
  })
  let packet: dnsPacket.DecodedPacket
  try {
    packet = dnsPacket.decode(Buffer.from(res.body))
  } catch {
    throw new UpstreamMalformed(UPSTREAM, 'not a DNS message')
  }
  const all = (packet.answers ?? []).map(toRecord).filter((r): r is DnsRecord => r !== null)
  const flags = packet.flags ?? 0
  return {
    name: trimDot(name),
    type,
    rcode: (packet as { rcode?: string }).rcode ?? 'NOERROR',
    authenticated: (flags & dnsPacket.AUTHENTIC_DATA) !== 0,
    records: all.filter((r) => r.type === type),
    chain: type === 'CNAME' ? [] : all.filter((r) => r.type === 'CNAME'),
  }
}

/** One lookup, cached briefly and shared between concurrent identical callers. */
export function resolve(name: string, type: RecordType): Promise<DnsResult> {
  const normalised = trimDot(name)
  return cached(`dns:${type}:${normalised}`, { ttlS: DNS_CACHE_S }, () => query(normalised, type))
}

export async function resolveTxt(name: string): Promise<string[]> {
  const r = await resolve(name, 'TXT')
  return r.records.map((rec) => (rec as { value: string }).value)
}

export async function resolveMx(name: string): Promise<{ priority: number; exchange: string }[]> {
  const r = await resolve(name, 'MX')
  return r.records
    .map((rec) => rec as Extract<DnsRecord, { type: 'MX' }>)
    .map(({ priority, exchange }) => ({ priority, exchange }))
    .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange))
}

/** Addresses of a host name (A then AAAA). */
export async function resolveAddresses(host: string): Promise<string[]> {
  const [a, aaaa] = await Promise.all([resolve(host, 'A'), resolve(host, 'AAAA')])
  return [...a.records, ...aaaa.records].map((rec) => (rec as { value: string }).value)
}

/** `1.2.3.4` → `4.3.2.1.in-addr.arpa`; IPv6 → reversed nibbles under `ip6.arpa`. */
export function reverseName(ip: string): string {
  const version = isIP(ip)
  if (version === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`
  if (version !== 6) throw new AppError('invalid_input', `"${ip}" is not an IP address`)
  const [head, tail = ''] = ip.toLowerCase().split('::')
  const groups = (s: string) => (s ? s.split(':') : [])
  const h = groups(head)
  const t = groups(tail)
  const full = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  const nibbles = full.map((g) => g.padStart(4, '0')).join('')
  return `${[...nibbles].reverse().join('.')}.ip6.arpa`
}

/** PTR names for an address (empty when there is none). */
export async function resolvePtr(ip: string): Promise<string[]> {
  const r = await resolve(reverseName(ip), 'PTR')
  return r.records.map((rec) => (rec as { value: string }).value)
}

import type { DnsRecord, DnsResult, RecordType } from '@/lib/dns/resolver'

// What the checks need from DNS. The service passes the DoH resolver; the checks never import it,
// so they stay plain functions over an injected lookup.

export interface Dns {
  resolve(name: string, type: RecordType): Promise<DnsResult>
}

/** The resolver answered, but not with NOERROR or NXDOMAIN (SERVFAIL, REFUSED, …). */
export class LookupFailed extends Error {
  constructor(
    readonly name: string,
    readonly type: RecordType,
    readonly rcode: string,
  ) {
    super(`the ${type} lookup of ${name} failed (${rcode})`)
  }
}

/** A lookup whose answer can be trusted either way: NOERROR (maybe with no records) or NXDOMAIN. */
export async function lookup(dns: Dns, name: string, type: RecordType): Promise<DnsResult> {
  const r = await dns.resolve(name, type)
  if (r.rcode !== 'NOERROR' && r.rcode !== 'NXDOMAIN') throw new LookupFailed(name, type, r.rcode)
  return r
}

export async function lookupTxt(dns: Dns, name: string): Promise<{ result: DnsResult; values: string[] }> {
  const result = await lookup(dns, name, 'TXT')
  return { result, values: result.records.map((r) => (r as Extract<DnsRecord, { type: 'TXT' }>).value) }
}

/** Presentation form of a record, for the `records` arrays of the report. */
export function present(r: DnsRecord): string {
  switch (r.type) {
    case 'MX':
      return `${r.priority} ${r.exchange || '.'}`
    case 'TXT':
      return r.value
    case 'CAA':
      return `${r.flags} ${r.tag} "${r.value}"`
    case 'TLSA':
      return `${r.usage} ${r.selector} ${r.matchingType} ${r.data}`
    case 'SOA':
      return `${r.mname} ${r.rname} ${r.serial}`
    default:
      return r.value
  }
}

/** `a.b.example.com` → `['b.example.com', 'example.com']`: ancestors down to two labels. */
export function ancestors(domain: string): string[] {
  const labels = domain.split('.')
  const out: string[] = []
  for (let i = 1; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'))
  return out
}

/** `tag=value; tag=value` (DMARC, MTA-STS TXT, TLS-RPT, BIMI, DKIM) → ordered pairs. */
export function parseTagList(record: string): { tag: string; value: string }[] {
  return record
    .split(';')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const eq = part.indexOf('=')
      return eq < 0 ? { tag: part.toLowerCase(), value: '' } : { tag: part.slice(0, eq).trim().toLowerCase(), value: part.slice(eq + 1).trim() }
    })
}

import { isIP } from 'node:net'
import type { DnsResult } from '@/lib/dns/resolver'
import { lookup, present, type Dns } from '@/lib/domains/dns'
import type { MxCheck } from '@/lib/domains/schemas'

// MX (RFC 5321 §5.1, RFC 7505 null MX, RFC 2181 §10.3: an MX must name a host, not an alias).

const MAX_HOSTS = 10

export async function checkMx(dns: Dns, domain: string, mx: DnsResult): Promise<MxCheck> {
  const rows = mx.records.flatMap((r) => (r.type === 'MX' ? [r] : [])).sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange))
  const records = rows.map(present)
  const nullMx = rows.some((r) => r.exchange === '')
  const base = { records, nullMx, warnings: [] as string[] }
  const nullRecord = { name: domain, type: 'MX', value: '0 .' }

  if (nullMx) {
    if (rows.length === 1) {
      return { ...base, hosts: [], status: 'pass', detail: 'Null MX (RFC 7505): the domain declares that it accepts no mail.', recommendation: null }
    }
    const warning = 'A null MX must be the only MX record (RFC 7505 §3); senders will treat this set as broken.'
    return {
      ...base,
      warnings: [warning],
      hosts: [],
      status: 'fail',
      detail: warning,
      recommendation: { action: 'Remove either the null MX or the other MX records.', record: null },
    }
  }

  if (rows.length === 0) {
    const [a, aaaa] = await Promise.all([lookup(dns, domain, 'A'), lookup(dns, domain, 'AAAA')])
    const fallback = a.records.length + aaaa.records.length > 0
    return {
      ...base,
      hosts: [],
      status: fallback ? 'warn' : 'not_found',
      detail: fallback
        ? 'No MX records: senders fall back to the address records of the domain itself (RFC 5321 §5.1).'
        : 'No MX records and no address to fall back to: the domain cannot receive mail.',
      recommendation: {
        action: 'Publish MX records for your mail provider, or a null MX if the domain receives no mail.',
        record: nullRecord,
      },
    }
  }

  const hosts = await Promise.all(
    rows.slice(0, MAX_HOSTS).map(async (r) => {
      if (isIP(r.exchange)) return { host: { priority: r.priority, exchange: r.exchange, addresses: [] }, ip: true, alias: false }
      const [a, aaaa] = await Promise.all([lookup(dns, r.exchange, 'A'), lookup(dns, r.exchange, 'AAAA')])
      const addresses = [...a.records, ...aaaa.records].map(present)
      return { host: { priority: r.priority, exchange: r.exchange, addresses }, ip: false, alias: a.chain.length > 0 || aaaa.chain.length > 0 }
    }),
  )
  const warnings: string[] = []
  const ips = hosts.filter((h) => h.ip).map((h) => h.host.exchange)
  const dead = hosts.filter((h) => !h.ip && h.host.addresses.length === 0).map((h) => h.host.exchange)
  const aliases = hosts.filter((h) => h.alias).map((h) => h.host.exchange)
  if (ips.length) warnings.push(`MX must name a host, not an IP address: ${ips.join(', ')}.`)
  if (dead.length) warnings.push(`MX host without an A/AAAA address: ${dead.join(', ')}.`)
  if (aliases.length) warnings.push(`MX host is a CNAME, which RFC 2181 §10.3 forbids: ${aliases.join(', ')}.`)
  if (rows.length > MAX_HOSTS) warnings.push(`${rows.length} MX records; only the first ${MAX_HOSTS} were examined.`)

  const broken = ips.length > 0 || dead.length === hosts.length
  const status = broken ? 'fail' : warnings.length ? 'warn' : 'pass'
  return {
    ...base,
    warnings,
    hosts: hosts.map((h) => h.host),
    status,
    detail: status === 'pass' ? `${rows.length} MX host${rows.length > 1 ? 's' : ''}, all resolving to addresses.` : warnings[0],
    recommendation:
      status === 'pass' ? null : { action: 'Point every MX record at a host name that has A/AAAA records (not an IP address or an alias).', record: null },
  }
}

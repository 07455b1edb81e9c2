import { lookup, present, type Dns } from '@/lib/domains/dns'
import type { DaneCheck } from '@/lib/domains/schemas'

// DANE for SMTP (RFC 7672): TLSA at `_25._tcp.{mx host}`, which counts only when DNSSEC
// validates it. Usages 2 (DANE-TA) and 3 (DANE-EE) are the ones SMTP uses.

const MAX_HOSTS = 10

export async function checkDane(dns: Dns, mxHosts: string[]): Promise<DaneCheck> {
  const hosts = await Promise.all(
    mxHosts.slice(0, MAX_HOSTS).map(async (host) => {
      const r = await lookup(dns, `_25._tcp.${host}`, 'TLSA')
      return { host, tlsa: r.records.map(present), authenticated: r.authenticated, usages: r.records.flatMap((x) => (x.type === 'TLSA' ? [x.usage] : [])) }
    }),
  )
  const out = hosts.map(({ usages: _u, ...h }) => h)
  const records = hosts.flatMap((h) => h.tlsa.map((t) => `_25._tcp.${h.host}: ${t}`))
  const withTlsa = hosts.filter((h) => h.tlsa.length > 0)
  if (withTlsa.length === 0) {
    return {
      hosts: out,
      records,
      warnings: [],
      status: 'not_found',
      detail: `No TLSA records on the ${hosts.length} MX host${hosts.length === 1 ? '' : 's'}.`,
      recommendation: {
        action:
          'If you run the mail servers, sign their zone with DNSSEC and publish a TLSA record for each; with a hosted provider, use its DANE support where offered.',
        record: mxHosts[0] ? { name: `_25._tcp.${mxHosts[0]}`, type: 'TLSA', value: '3 1 1 <SHA-256 of the server public key>' } : null,
      },
    }
  }
  const warnings: string[] = []
  const unsigned = withTlsa.filter((h) => !h.authenticated).map((h) => h.host)
  const missing = hosts.filter((h) => h.tlsa.length === 0).map((h) => h.host)
  const pkix = withTlsa.filter((h) => h.usages.some((u) => u === 0 || u === 1)).map((h) => h.host)
  if (unsigned.length) warnings.push(`TLSA without DNSSEC validation is ignored by senders: ${unsigned.join(', ')}.`)
  if (missing.length) warnings.push(`MX hosts without TLSA: ${missing.join(', ')}.`)
  if (pkix.length) warnings.push(`TLSA usages 0 and 1 are not used for SMTP (RFC 7672 §3.1.3): ${pkix.join(', ')}.`)
  const status = unsigned.length === withTlsa.length ? 'fail' : warnings.length ? 'warn' : 'pass'
  return {
    hosts: out,
    records,
    warnings,
    status,
    detail: warnings[0] ?? `DNSSEC-validated TLSA records on all ${hosts.length} MX host${hosts.length === 1 ? '' : 's'}.`,
    recommendation: warnings.length ? { action: 'Publish DNSSEC-signed TLSA records (usage 2 or 3) for every MX host.', record: null } : null,
  }
}

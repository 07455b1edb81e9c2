import { lookupTxt, parseTagList, type Dns } from '@/lib/domains/dns'
import type { TlsRptCheck } from '@/lib/domains/schemas'

// SMTP TLS reporting (RFC 8460): `v=TLSRPTv1; rua=mailto:…,https://…` at `_smtp._tls.{domain}`.

export const isTlsRptRecord = (txt: string) => /^v=TLSRPTv1\s*(;|$)/.test(txt.trim())

export async function checkTlsRpt(dns: Dns, domain: string): Promise<TlsRptCheck> {
  const name = `_smtp._tls.${domain}`
  const txt = (await lookupTxt(dns, name)).values.filter(isTlsRptRecord)
  if (txt.length === 0) {
    return {
      record: null,
      rua: [],
      records: [],
      warnings: [],
      status: 'not_found',
      detail: 'No TLS-RPT record: you get no reports when senders fail to deliver over TLS.',
      recommendation: {
        action: 'Publish a TLS-RPT record with an address for daily reports.',
        record: { name, type: 'TXT', value: `v=TLSRPTv1; rua=mailto:tls-reports@${domain}` },
      },
    }
  }
  if (txt.length > 1) {
    const w = `${txt.length} TLS-RPT records at ${name}; exactly one is allowed.`
    return {
      record: null,
      rua: [],
      records: txt,
      warnings: [w],
      status: 'fail',
      detail: w,
      recommendation: { action: 'Keep exactly one v=TLSRPTv1 record.', record: null },
    }
  }
  const record = txt[0]
  const rua = (parseTagList(record).find((t) => t.tag === 'rua')?.value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const bad = rua.filter((u) => !/^(mailto:[^@\s]+@[^@\s]+|https:\/\/\S+)$/i.test(u))
  const warnings = [...(rua.length === 0 ? ['The record has no rua destination.'] : []), ...bad.map((u) => `"${u}" is not a mailto: or https: URI.`)]
  return {
    record,
    rua,
    records: [record],
    warnings,
    status: warnings.length ? 'fail' : 'pass',
    detail: warnings[0] ?? `TLS reports go to ${rua.join(', ')}.`,
    recommendation: warnings.length
      ? { action: 'Give rua one or more mailto: or https: destinations.', record: { name, type: 'TXT', value: `v=TLSRPTv1; rua=mailto:tls-reports@${domain}` } }
      : null,
  }
}

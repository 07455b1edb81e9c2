import { lookupTxt, parseTagList, type Dns } from '@/lib/domains/dns'
import type { BimiCheck } from '@/lib/domains/schemas'

// BIMI (draft-brand-indicators-for-message-identification): `v=BIMI1; l=<SVG URL>; a=<VMC URL>` at
// `default._bimi.{domain}`. Mailbox providers show the logo only under an enforcing DMARC policy.

export async function checkBimi(dns: Dns, domain: string, dmarcEnforced: boolean): Promise<BimiCheck> {
  const name = `default._bimi.${domain}`
  const txt = (await lookupTxt(dns, name)).values.filter((v) => /^v=BIMI1\s*(;|$)/i.test(v.trim()))
  if (txt.length === 0) {
    return {
      record: null,
      logoUrl: null,
      authorityUrl: null,
      records: [],
      warnings: [],
      status: 'not_found',
      detail: 'No BIMI record (optional: shows your logo next to authenticated mail in some mailboxes).',
      recommendation: dmarcEnforced
        ? {
            action: 'Optionally publish a BIMI record pointing at an SVG Tiny PS logo (and a mark certificate for Gmail and Apple Mail).',
            record: { name, type: 'TXT', value: 'v=BIMI1; l=https://<your host>/logo.svg; a=<https URL of your VMC, optional>' },
          }
        : null,
    }
  }
  const record = txt[0]
  const tags = Object.fromEntries(parseTagList(record).map((t) => [t.tag, t.value]))
  const logoUrl = tags.l || null
  const authorityUrl = tags.a || null
  const warnings: string[] = []
  if (txt.length > 1) warnings.push(`${txt.length} BIMI records at ${name}; exactly one is allowed.`)
  if (!dmarcEnforced) warnings.push('BIMI logos are shown only when DMARC is p=quarantine or p=reject.')
  if (logoUrl && !logoUrl.startsWith('https://')) warnings.push('The logo URL (l=) must be https.')
  if (!logoUrl && !authorityUrl) warnings.push('The record declines BIMI (empty l= and a=).')
  if (!authorityUrl && logoUrl) warnings.push('No mark certificate (a=): Gmail and Apple Mail show no logo without one.')
  const blocking = warnings.filter((w) => !w.startsWith('No mark certificate'))
  return {
    record,
    logoUrl,
    authorityUrl,
    records: txt,
    warnings,
    status: blocking.length ? 'warn' : 'pass',
    detail: blocking[0] ?? (authorityUrl ? 'BIMI record with a logo and a mark certificate.' : 'BIMI record with a logo; no mark certificate.'),
    recommendation: blocking.length
      ? {
          action: dmarcEnforced
            ? 'Serve the logo over https and keep exactly one BIMI record.'
            : 'Enforce DMARC (p=quarantine or p=reject) so the logo can be shown.',
          record: null,
        }
      : null,
  }
}

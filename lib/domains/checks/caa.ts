import { ancestors, lookup, present, type Dns } from '@/lib/domains/dns'
import type { CaaCheck } from '@/lib/domains/schemas'

// CAA (RFC 8659): the relevant set is the one at the domain or, failing that, at the closest
// ancestor that has one. An unknown property with the critical flag forbids all issuance.

const KNOWN = new Set(['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone', 'issuemail', 'issuevmc'])

export async function checkCaa(dns: Dns, domain: string): Promise<CaaCheck> {
  const names = [domain, ...ancestors(domain)]
  const answers = await Promise.all(names.map(async (name) => ({ name, result: await lookup(dns, name, 'CAA') })))
  const found = answers.find((a) => a.result.records.length > 0)
  if (!found) {
    return {
      foundAt: null,
      issuers: [],
      wildcardIssuers: [],
      iodef: [],
      records: [],
      warnings: [],
      status: 'not_found',
      detail: 'No CAA record: any certificate authority may issue certificates for the domain.',
      recommendation: {
        action: 'Publish CAA records naming only the certificate authorities you use.',
        record: { name: domain, type: 'CAA', value: '0 issue "<your CA, e.g. letsencrypt.org>"' },
      },
    }
  }
  const rows = found.result.records.flatMap((r) => (r.type === 'CAA' ? [r] : []))
  const value = (tag: string) => rows.filter((r) => r.tag.toLowerCase() === tag).map((r) => r.value.split(';')[0].trim())
  const issuers = value('issue')
  const wildcardIssuers = value('issuewild')
  const iodef = value('iodef')
  const warnings: string[] = []
  for (const r of rows) {
    if (!KNOWN.has(r.tag.toLowerCase()) && r.flags & 128) warnings.push(`Critical unknown property "${r.tag}": certificate authorities will refuse to issue.`)
  }
  if (issuers.length === 0 && wildcardIssuers.length === 0) warnings.push('No issue or issuewild property: the set does not restrict issuance.')
  const critical = warnings.some((w) => w.startsWith('Critical'))
  const where = found.name === domain ? '' : ` (inherited from ${found.name})`
  const allowed = issuers.map((i) => i || '(none)').join(', ')
  return {
    foundAt: found.name,
    issuers,
    wildcardIssuers,
    iodef,
    records: rows.map(present),
    warnings,
    status: critical ? 'fail' : warnings.length ? 'warn' : 'pass',
    detail: warnings[0] ?? `CAA allows ${allowed || 'no issuer'}${where}.`,
    recommendation: warnings.length
      ? { action: 'List the certificate authorities you use in issue properties and remove unknown critical properties.', record: null }
      : null,
  }
}

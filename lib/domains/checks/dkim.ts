import { createPublicKey } from 'node:crypto'
import { lookup, lookupTxt, parseTagList, type Dns } from '@/lib/domains/dns'
import type { DkimCheck } from '@/lib/domains/schemas'

// DKIM (RFC 6376). Selectors cannot be listed from DNS, so the check probes the selectors common
// providers use plus the caller's, and asks whether `_domainkey.{domain}` exists at all: NOERROR
// (even with no data) means something is published below it, NXDOMAIN means nothing is (RFC 8020).
// A key that was not found is "not found among probed selectors", never "missing".

export const COMMON_SELECTORS = [
  'selector1', // Microsoft 365
  'selector2', // Microsoft 365
  'google',
  'default',
  'dkim',
  'mail',
  'k1', // Mailchimp, Mailgun
  'k2',
  's1', // SendGrid
  's2',
  'smtp',
  'fm1', // Fastmail
  'fm2',
  'protonmail',
  'zoho',
  'mandrill',
]

export interface DkimKeyInfo {
  keyType: string | null
  keyBits: number | null
  testing: boolean
  revoked: boolean
  valid: boolean
}

/** Key facts from a DKIM TXT record (`v=DKIM1; k=rsa; p=…`). */
export function parseDkimKey(record: string): DkimKeyInfo {
  const tags = Object.fromEntries(parseTagList(record).map((t) => [t.tag, t.value]))
  const p = tags.p?.replace(/\s+/g, '')
  const keyType = (tags.k ?? 'rsa').toLowerCase()
  const testing = (tags.t ?? '')
    .split(':')
    .map((f) => f.trim().toLowerCase())
    .includes('y')
  if (p === undefined || (tags.v !== undefined && tags.v !== 'DKIM1')) return { keyType: null, keyBits: null, testing, revoked: false, valid: false }
  if (p === '') return { keyType, keyBits: null, testing, revoked: true, valid: true }
  let keyBits: number | null = null
  if (keyType === 'ed25519') keyBits = Buffer.from(p, 'base64').length === 32 ? 256 : null
  else {
    for (const type of ['spki', 'pkcs1'] as const) {
      try {
        keyBits = createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type }).asymmetricKeyDetails?.modulusLength ?? null
        break
      } catch {
        // not this encoding
      }
    }
  }
  return { keyType, keyBits, testing, revoked: false, valid: keyBits !== null }
}

export async function checkDkim(dns: Dns, domain: string, extraSelectors: string[] = []): Promise<DkimCheck> {
  const selectors = [...new Set([...extraSelectors, ...COMMON_SELECTORS])]
  const [node, probes] = await Promise.all([
    lookup(dns, `_domainkey.${domain}`, 'TXT'),
    Promise.all(
      selectors.map(async (selector) => {
        const name = `${selector}._domainkey.${domain}`
        const { result, values } = await lookupTxt(dns, name)
        const last = result.chain.at(-1)
        return { selector, name, cname: last?.type === 'CNAME' ? last.value : null, values }
      }),
    ),
  ])
  const keys = probes
    .filter((p) => p.values.length > 0 || p.cname)
    .map((p) => {
      const record = p.values.find((v) => /(^|;)\s*p\s*=/i.test(v)) ?? p.values[0] ?? null
      const info = record ? parseDkimKey(record) : { keyType: null, keyBits: null, testing: false, revoked: false, valid: false }
      return { selector: p.selector, name: p.name, cname: p.cname, record, ...info }
    })
  const domainKeyNodeExists = node.rcode === 'NOERROR'
  const records = keys.flatMap((k) => (k.record ? [`${k.name}: ${k.record}`] : []))
  const warnings: string[] = []
  for (const k of keys) {
    if (!k.record && k.cname) warnings.push(`${k.selector} is delegated to ${k.cname}, which publishes no key (in Microsoft 365: DKIM signing is not enabled).`)
    else if (k.revoked) warnings.push(`${k.selector}: the key is revoked (empty p=).`)
    else if (!k.valid) warnings.push(`${k.selector}: the record is not a usable DKIM key.`)
    else if (k.keyType === 'rsa' && k.keyBits !== null && k.keyBits < 1024)
      warnings.push(`${k.selector}: ${k.keyBits}-bit RSA key; receivers reject keys under 1024 bits.`)
    else if (k.keyType === 'rsa' && k.keyBits !== null && k.keyBits < 2048) warnings.push(`${k.selector}: ${k.keyBits}-bit RSA key; 2048 bits is recommended.`)
    if (k.testing) warnings.push(`${k.selector}: t=y, the key is in test mode and receivers may ignore failures.`)
  }
  const usable = keys.filter((k) => k.valid && !k.revoked && !(k.keyType === 'rsa' && (k.keyBits ?? 0) < 1024))
  const out = { selectorsProbed: selectors, domainKeyNodeExists, keys: keys.map(({ valid: _valid, ...k }) => k), records, warnings }
  const probed = `${selectors.length} probed selectors`
  if (usable.length > 0) {
    const names = usable.map((k) => k.selector).join(', ')
    return {
      ...out,
      status: warnings.length ? 'warn' : 'pass',
      detail: warnings.length ? warnings[0] : `DKIM key${usable.length > 1 ? 's' : ''} found for selector${usable.length > 1 ? 's' : ''} ${names}.`,
      recommendation: warnings.length
        ? { action: 'Publish a 2048-bit key under a new selector, switch signing to it, then remove the old key.', record: null }
        : null,
    }
  }
  if (keys.length > 0) {
    return {
      ...out,
      status: 'warn',
      detail: warnings[0] ?? 'No usable DKIM key among the probed selectors.',
      recommendation: { action: 'Enable DKIM signing at your mail provider so the delegated selectors resolve to keys.', record: null },
    }
  }
  if (domainKeyNodeExists) {
    return {
      ...out,
      status: 'info',
      detail: `No DKIM key found among the ${probed}, but names exist under _domainkey.${domain}: keys are probably published under other selectors.`,
      recommendation: { action: 'Pass your selectors (the s= tag of a DKIM-Signature header) in `selectors` to have them checked.', record: null },
    }
  }
  return {
    ...out,
    status: 'not_found',
    detail: `No DKIM key found among the ${probed}, and nothing is published under _domainkey.${domain}.`,
    recommendation: {
      action: 'Turn on DKIM signing at your mail provider and publish the key it gives you (Microsoft 365: CNAMEs for selector1 and selector2).',
      record: { name: `selector1._domainkey.${domain}`, type: 'TXT', value: 'v=DKIM1; k=rsa; p=<public key from your mail provider>' },
    },
  }
}

import { ancestors, lookupTxt, parseTagList, type Dns } from '@/lib/domains/dns'
import type { DmarcCheck } from '@/lib/domains/schemas'

// DMARC as RFC 9989 (DMARCbis) defines it: `v=DMARC1` first, tags in any order after it, `pct`,
// `rf` and `ri` removed, `np`/`psd`/`t` added, a missing `p` treated as `none`, unknown tags
// ignored, and policy discovery by a DNS tree walk rather than the Public Suffix List.

type Policy = 'none' | 'quarantine' | 'reject'
const POLICIES = new Set(['none', 'quarantine', 'reject'])
const REMOVED = new Set(['pct', 'rf', 'ri'])
const KNOWN = new Set(['v', 'p', 'sp', 'np', 'psd', 't', 'adkim', 'aspf', 'fo', 'rua', 'ruf', ...REMOVED])
/** RFC 9989 §4.10: a name longer than this is shortened before the walk. */
const MAX_WALK_LABELS = 8

export const isDmarcRecord = (txt: string) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(txt.trim())

export interface ParsedDmarc {
  tags: NonNullable<DmarcCheck['tags']>
  /** Every tag in record order, for rebuilding a corrected record. */
  pairs: { tag: string; value: string }[]
  policy: Policy
  testing: boolean
  warnings: string[]
  errors: string[]
}

const uris = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)

export function parseDmarc(record: string): ParsedDmarc {
  const pairs = parseTagList(record)
  const warnings: string[] = []
  const errors: string[] = []
  const get = (tag: string) => pairs.find((p) => p.tag === tag)?.value
  const seen = new Set<string>()
  for (const { tag, value } of pairs) {
    if (seen.has(tag)) warnings.push(`tag "${tag}" appears more than once; the first is used`)
    seen.add(tag)
    if (REMOVED.has(tag)) warnings.push(`"${tag}=${value}" was removed in RFC 9989 and is ignored by receivers that follow it`)
    else if (!KNOWN.has(tag)) warnings.push(`unknown tag "${tag}" is ignored`)
  }
  const lower = (tag: string) => get(tag)?.toLowerCase() ?? null
  const p = lower('p')
  let policy: Policy = 'none'
  if (p === null) warnings.push('no "p" tag: treated as p=none')
  else if (!POLICIES.has(p)) warnings.push(`p=${get('p')} is not none, quarantine or reject: treated as p=none`)
  else policy = p as Policy
  for (const tag of ['sp', 'np']) {
    const v = lower(tag)
    if (v !== null && !POLICIES.has(v)) errors.push(`${tag}=${get(tag)} is not none, quarantine or reject`)
  }
  for (const tag of ['adkim', 'aspf']) {
    const v = lower(tag)
    if (v !== null && v !== 'r' && v !== 's') errors.push(`${tag}=${get(tag)} must be r or s`)
  }
  const t = lower('t')
  if (t !== null && t !== 'y' && t !== 'n') errors.push(`t=${get('t')} must be y or n`)
  const psd = lower('psd')
  if (psd !== null && !['y', 'n', 'u'].includes(psd)) errors.push(`psd=${get('psd')} must be y, n or u`)
  const pct = get('pct')
  if (pct !== undefined && pct !== '100') warnings.push(`pct=${pct}: older receivers apply the policy to only part of the mail`)
  const rua = uris(get('rua'))
  const ruf = uris(get('ruf'))
  for (const u of [...rua, ...ruf]) {
    if (!/^(mailto|https?):/i.test(u)) errors.push(`report URI "${u}" is not a mailto: URI`)
    if (/![0-9]+[kmgt]?$/i.test(u)) warnings.push(`size limit "!…" on "${u}" is obsolete in RFC 9989`)
  }
  return {
    tags: { p, sp: lower('sp'), np: lower('np'), psd, t, adkim: lower('adkim'), aspf: lower('aspf'), fo: get('fo') ?? null, rua, ruf },
    pairs,
    policy,
    testing: t === 'y',
    warnings,
    errors,
  }
}

/** A corrected record: the stronger policy, removed tags dropped, other tags kept in order. */
export function rebuildDmarc(pairs: { tag: string; value: string }[], policy: Policy): string {
  const rest = pairs.filter((p) => !['v', 'p', 't', ...REMOVED].includes(p.tag)).map((p) => `${p.tag}=${p.value}`)
  return ['v=DMARC1', `p=${policy}`, ...rest].join('; ')
}

/** The host part of a report URI: `mailto:a@b.example!10m` → `b.example`. */
export function reportHost(uri: string): string | null {
  const mail = /^mailto:[^@]+@([^!?]+)/i.exec(uri)
  if (mail) return mail[1].toLowerCase().replace(/\.$/, '')
  try {
    return new URL(uri).hostname.toLowerCase()
  } catch {
    return null
  }
}

const under = (name: string, apex: string) => name === apex || name.endsWith(`.${apex}`)

interface Found {
  at: string
  records: string[]
}

async function findPolicy(dns: Dns, domain: string): Promise<Found | null> {
  const own = (await lookupTxt(dns, `_dmarc.${domain}`)).values.filter(isDmarcRecord)
  if (own.length) return { at: domain, records: own }
  let names = ancestors(domain)
  const labels = domain.split('.').length
  if (labels > MAX_WALK_LABELS) names = names.filter((n) => n.split('.').length < MAX_WALK_LABELS)
  const answers = await Promise.all(names.map(async (n) => ({ at: n, records: (await lookupTxt(dns, `_dmarc.${n}`)).values.filter(isDmarcRecord) })))
  return answers.find((a) => a.records.length > 0) ?? null
}

export async function checkDmarc(dns: Dns, domain: string): Promise<DmarcCheck> {
  const found = await findPolicy(dns, domain)
  const empty = { record: null, policyDomain: null, inherited: false, policy: null, testing: false, tags: null, reportDestinations: [] }
  const suggested = `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}`
  if (!found) {
    return {
      ...empty,
      records: [],
      warnings: [],
      status: 'not_found',
      detail: `No DMARC record at _dmarc.${domain} or above it: receivers get no policy for mail that fails SPF and DKIM.`,
      recommendation: {
        action: 'Publish a DMARC record with a reporting address, then tighten p to quarantine and reject once the reports show your mail aligns.',
        record: { name: `_dmarc.${domain}`, type: 'TXT', value: suggested },
      },
    }
  }
  const inherited = found.at !== domain
  if (found.records.length > 1) {
    const warning = `${found.records.length} DMARC records at _dmarc.${found.at}; receivers ignore them all.`
    return {
      ...empty,
      policyDomain: found.at,
      inherited,
      records: found.records,
      warnings: [warning],
      status: 'fail',
      detail: warning,
      recommendation: { action: 'Keep exactly one v=DMARC1 record.', record: null },
    }
  }
  const record = found.records[0]
  const parsed = parseDmarc(record)
  const warnings = [...parsed.errors, ...parsed.warnings]
  const own = parsed.tags
  // A subdomain inherits sp (falling back to p) from the record found by the walk.
  const policy = (inherited ? ((own.sp as Policy | null) ?? parsed.policy) : parsed.policy) as Policy
  const enforcing = policy !== 'none'
  if (!inherited && enforcing && own.sp === 'none') warnings.push('sp=none leaves subdomains unprotected.')
  if (!inherited && enforcing && own.np === 'none') warnings.push('np=none leaves non-existent subdomains open to spoofing.')
  if (own.rua.length === 0) warnings.push('No rua address: you receive no aggregate reports about mail sent as this domain.')

  const reportDestinations = await Promise.all(
    [...own.rua.map((uri) => ({ kind: 'rua' as const, uri })), ...own.ruf.map((uri) => ({ kind: 'ruf' as const, uri }))].map(async (d) => {
      const host = reportHost(d.uri)
      const external = host !== null && !under(host, found.at) && !under(found.at, host)
      if (!external) return { ...d, external: false, authorized: null }
      const name = `${found.at}._report._dmarc.${host}`
      const authorized = name.length <= 253 && (await lookupTxt(dns, name)).values.some(isDmarcRecord)
      if (!authorized) warnings.push(`${host} has not authorised reports for ${found.at} (no v=DMARC1 at ${name}); receivers will not send them.`)
      return { ...d, external: true, authorized }
    }),
  )

  const unauthorised = reportDestinations.some((d) => d.authorized === false)
  const status = parsed.errors.length
    ? 'fail'
    : !enforcing || parsed.testing || unauthorised
      ? 'warn'
      : parsed.warnings.some((w) => w.startsWith('pct='))
        ? 'warn'
        : 'pass'
  const where = inherited ? ` (inherited from _dmarc.${found.at})` : ''
  const detail = parsed.errors.length
    ? `Invalid DMARC record: ${parsed.errors[0]}.`
    : !enforcing
      ? `DMARC policy is p=none${where}: failing mail is only monitored, not blocked.`
      : parsed.testing
        ? `DMARC policy ${policy}${where} is in test mode (t=y): receivers apply one level less.`
        : unauthorised
          ? `DMARC policy ${policy}${where}, but an external report address is not authorised.`
          : `DMARC policy ${policy}${where}.`
  let recommendation: DmarcCheck['recommendation'] = null
  if (parsed.errors.length) recommendation = { action: `Fix the DMARC record: ${parsed.errors[0]}.`, record: null }
  else if (!enforcing || parsed.testing)
    recommendation = {
      action: 'Once aggregate reports show your legitimate mail passes SPF or DKIM in alignment, enforce the policy (quarantine, then reject).',
      record: { name: `_dmarc.${found.at}`, type: 'TXT', value: rebuildDmarc(parsed.pairs, 'quarantine') },
    }
  else if (unauthorised)
    recommendation = { action: 'Ask the report receiver to publish "v=DMARC1" at the authorisation name, or use an address in your own domain.', record: null }
  return {
    record,
    policyDomain: found.at,
    inherited,
    policy,
    testing: parsed.testing,
    tags: own,
    reportDestinations,
    records: [record],
    warnings,
    status,
    detail,
    recommendation,
  }
}

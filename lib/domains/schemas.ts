import { z } from 'zod'
import { normaliseDomain } from '@/lib/domains/domain-name'
import { Support } from '@/lib/support'

// Inputs ---------------------------------------------------------------------------------------

/** A domain name, normalised to lower-case ASCII (a Unicode name becomes its punycode form). */
export const DomainName = z
  .string()
  .max(300)
  .overwrite((v) => {
    const r = normaliseDomain(v)
    return r.ok ? r.domain : v
  })
  .superRefine((v, ctx) => {
    const r = normaliseDomain(v)
    if (!r.ok) ctx.addIssue({ code: 'custom', message: r.problem })
  })
  .meta({
    description: 'A registrable domain or any host name below one; Unicode names are accepted and checked in their punycode form',
    examples: ['example.com'],
  })

const SELECTOR = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*$/i

/** DKIM selectors to probe in addition to the common ones. */
export const DkimSelectors = z
  .array(z.string().trim().toLowerCase().max(120).regex(SELECTOR, 'a DKIM selector is one or more DNS labels (letters, digits, hyphens, underscores)'))
  .max(10)
  .meta({ description: 'Up to 10 DKIM selectors to probe in addition to the common ones', examples: [['s2048', 'mandrill']] })

export const DomainParams = z.object({ domain: DomainName })

export const DomainHealthQuery = z.object({
  selectors: z
    .string()
    .max(1300)
    .transform((v) => v.split(',').filter((s) => s.trim() !== ''))
    .pipe(DkimSelectors)
    .optional()
    .meta({ description: 'Comma-separated DKIM selectors (at most 10) probed in addition to the common ones', examples: ['s2048,mandrill'] }),
})

// Checks ---------------------------------------------------------------------------------------

export const CheckStatus = z.enum(['pass', 'warn', 'fail', 'info', 'not_found']).meta({
  id: 'DomainCheckStatus',
  description:
    '`pass`: meets the rule; `warn`: works but is weak; `fail`: broken or unsafe; `not_found`: not published (or not among what could be probed); `info`: not applicable, or the lookup failed (see `detail`)',
})
export type CheckStatus = z.infer<typeof CheckStatus>

export const RecordToPublish = z
  .object({
    name: z.string().meta({ description: 'Owner name of the record' }),
    type: z.string().meta({ examples: ['TXT'] }),
    value: z.string().meta({ description: 'Record data; angle brackets mark a value only you can supply' }),
  })
  .meta({ id: 'DnsRecordToPublish' })

export const Recommendation = z
  .object({
    action: z.string().meta({ description: 'What to change, in one sentence' }),
    record: RecordToPublish.nullable().meta({ description: 'The record to publish, when a DNS record is the fix' }),
  })
  .meta({ id: 'DomainCheckRecommendation' })
export type Recommendation = z.infer<typeof Recommendation>

const checkBase = {
  status: CheckStatus,
  detail: z.string().meta({ description: 'One line explaining the status' }),
  records: z.array(z.string()).meta({ description: 'The raw records the check read, in presentation form' }),
  warnings: z.array(z.string()).meta({ description: 'Every problem found, including those that did not decide the status' }),
  recommendation: Recommendation.nullable().meta({ description: 'null when there is nothing to do' }),
}
export const CheckBase = z.object(checkBase)
export type CheckBase = z.infer<typeof CheckBase>

export const MxHost = z.object({
  priority: z.number().int(),
  exchange: z.string(),
  addresses: z.array(z.string()).meta({ description: 'A and AAAA addresses of the host' }),
})

export const MxCheck = z
  .object({
    ...checkBase,
    nullMx: z.boolean().meta({ description: 'The domain publishes a null MX (`0 .`, RFC 7505): it accepts no mail' }),
    hosts: z.array(MxHost),
  })
  .meta({ id: 'MxCheck' })
export type MxCheck = z.infer<typeof MxCheck>

export const SpfNode = z
  .object({
    domain: z.string(),
    depth: z.number().int().meta({ description: '0 for the checked domain, 1 for its includes, …' }),
    via: z.enum(['root', 'include', 'redirect']),
    record: z.string().nullable(),
    lookups: z.number().int().meta({ description: 'DNS-querying terms in this record (include, a, mx, ptr, exists, redirect)' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'SpfNode' })
export type SpfNode = z.infer<typeof SpfNode>

export const SpfCheck = z
  .object({
    ...checkBase,
    record: z.string().nullable(),
    lookupCount: z.number().int().meta({ description: 'DNS-querying terms across the whole include/redirect tree (limit 10, RFC 7208 §4.6.4)' }),
    voidLookupCount: z.number().int().meta({ description: 'Lookups that returned NXDOMAIN or no records (limit 2)' }),
    allQualifier: z
      .enum(['+', '-', '~', '?'])
      .nullable()
      .meta({ description: 'Qualifier of the effective `all` (following `redirect`); null when there is none' }),
    tree: z.array(SpfNode).meta({ description: 'The include/redirect tree, depth-first' }),
  })
  .meta({ id: 'SpfCheck' })
export type SpfCheck = z.infer<typeof SpfCheck>

export const DmarcTags = z.object({
  p: z.string().nullable(),
  sp: z.string().nullable(),
  np: z.string().nullable(),
  psd: z.string().nullable(),
  t: z.string().nullable(),
  adkim: z.string().nullable(),
  aspf: z.string().nullable(),
  fo: z.string().nullable(),
  rua: z.array(z.string()),
  ruf: z.array(z.string()),
})

export const DmarcReportDestination = z.object({
  kind: z.enum(['rua', 'ruf']),
  uri: z.string(),
  external: z.boolean().meta({ description: 'The address is outside the policy domain' }),
  authorized: z
    .boolean()
    .nullable()
    .meta({ description: 'For an external address: whether `{domain}._report._dmarc.{host}` authorises it; null when not external' }),
})

export const DmarcCheck = z
  .object({
    ...checkBase,
    record: z.string().nullable(),
    policyDomain: z.string().nullable().meta({ description: 'Where the applicable record was found (the domain, or an ancestor by the RFC 9989 tree walk)' }),
    inherited: z.boolean(),
    policy: z.enum(['none', 'quarantine', 'reject']).nullable().meta({ description: 'The policy that applies to mail from the checked domain' }),
    testing: z.boolean().meta({ description: '`t=y`: the owner is testing and receivers apply one level less' }),
    tags: DmarcTags.nullable(),
    reportDestinations: z.array(DmarcReportDestination),
  })
  .meta({ id: 'DmarcCheck' })
export type DmarcCheck = z.infer<typeof DmarcCheck>

export const DkimKey = z.object({
  selector: z.string(),
  name: z.string(),
  cname: z.string().nullable().meta({ description: 'CNAME target when the selector is delegated (Microsoft 365 does this)' }),
  keyType: z.string().nullable(),
  keyBits: z.number().int().nullable(),
  testing: z.boolean(),
  revoked: z.boolean().meta({ description: 'Published with an empty `p=`' }),
  record: z.string().nullable(),
})

export const DkimCheck = z
  .object({
    ...checkBase,
    selectorsProbed: z.array(z.string()),
    domainKeyNodeExists: z.boolean().meta({ description: '`_domainkey.{domain}` exists (NOERROR); false means NXDOMAIN, so nothing is published below it' }),
    keys: z.array(DkimKey),
  })
  .meta({ id: 'DkimCheck' })
export type DkimCheck = z.infer<typeof DkimCheck>

export const MtaStsPolicy = z.object({
  version: z.string().nullable(),
  mode: z.enum(['enforce', 'testing', 'none']).nullable(),
  maxAge: z.number().int().nullable().meta({ description: 'Seconds' }),
  mx: z.array(z.string()).meta({ description: 'MX patterns, lower-case, trailing dots removed' }),
})
export type MtaStsPolicy = z.infer<typeof MtaStsPolicy>

export const MtaStsCheck = z
  .object({
    ...checkBase,
    record: z.string().nullable(),
    id: z.string().nullable(),
    policyUrl: z.string().nullable(),
    policy: MtaStsPolicy.nullable(),
    uncoveredMxHosts: z.array(z.string()).meta({ description: 'MX hosts no policy `mx` pattern matches' }),
  })
  .meta({ id: 'MtaStsCheck' })
export type MtaStsCheck = z.infer<typeof MtaStsCheck>

export const TlsRptCheck = z.object({ ...checkBase, record: z.string().nullable(), rua: z.array(z.string()) }).meta({ id: 'TlsRptCheck' })
export type TlsRptCheck = z.infer<typeof TlsRptCheck>

export const BimiCheck = z
  .object({ ...checkBase, record: z.string().nullable(), logoUrl: z.string().nullable(), authorityUrl: z.string().nullable() })
  .meta({ id: 'BimiCheck' })
export type BimiCheck = z.infer<typeof BimiCheck>

export const DnssecCheck = z
  .object({ ...checkBase, authenticated: z.boolean().meta({ description: 'The validating resolver set the AD flag on the answers for the domain' }) })
  .meta({ id: 'DnssecCheck' })
export type DnssecCheck = z.infer<typeof DnssecCheck>

export const CaaCheck = z
  .object({
    ...checkBase,
    foundAt: z.string().nullable().meta({ description: 'The name whose CAA set applies (the domain or the closest ancestor with one)' }),
    issuers: z.array(z.string()),
    wildcardIssuers: z.array(z.string()),
    iodef: z.array(z.string()),
  })
  .meta({ id: 'CaaCheck' })
export type CaaCheck = z.infer<typeof CaaCheck>

export const DaneHost = z.object({
  host: z.string(),
  tlsa: z.array(z.string()),
  authenticated: z.boolean(),
})

export const DaneCheck = z.object({ ...checkBase, hosts: z.array(DaneHost) }).meta({ id: 'DaneCheck' })
export type DaneCheck = z.infer<typeof DaneCheck>

export const CHECK_NAMES = ['mx', 'spf', 'dmarc', 'dkim', 'mtaSts', 'tlsRpt', 'bimi', 'dnssec', 'caa', 'dane'] as const
export type CheckName = (typeof CHECK_NAMES)[number]

export const DomainChecks = z
  .object({
    mx: MxCheck,
    spf: SpfCheck,
    dmarc: DmarcCheck,
    dkim: DkimCheck,
    mtaSts: MtaStsCheck,
    tlsRpt: TlsRptCheck,
    bimi: BimiCheck,
    dnssec: DnssecCheck,
    caa: CaaCheck,
    dane: DaneCheck,
  })
  .meta({ id: 'DomainChecks' })
export type DomainChecks = z.infer<typeof DomainChecks>

// Results --------------------------------------------------------------------------------------

const postureFields = {
  authoritativeNameServers: z.array(z.string()).meta({ description: 'NS records of the zone the domain belongs to' }),
  mxRecords: z.array(z.string()).meta({ description: 'MX records as `priority host`, lowest priority first', examples: [['10 mx1.example.com']] }),
  spfRecord: z.string().nullable(),
  dmarcRecord: z.string().nullable(),
  dmarcPolicy: z.enum(['none', 'quarantine', 'reject']).nullable().meta({ description: '`p` of the DMARC record at `_dmarc.{domain}`' }),
}

export const Grade = z.enum(['A', 'B', 'C', 'D', 'F'])

export const DomainHealthReport = z
  .object({
    domain: z.string().meta({ description: 'The checked domain, ASCII (punycode) form' }),
    isPlatformDomain: z.boolean(),
    checkedAt: z.iso.datetime(),
    ...postureFields,
    score: z.number().int().min(0).max(100).meta({ description: 'Weighted share of the checks passed (see the operation description)' }),
    grade: Grade.meta({ description: 'A ≥ 90, B ≥ 75, C ≥ 60, D ≥ 40, F below' }),
    summary: z
      .object({ pass: z.number().int(), warn: z.number().int(), fail: z.number().int(), info: z.number().int(), not_found: z.number().int() })
      .meta({ description: 'How many checks ended in each status' }),
    checks: DomainChecks,
    recommendations: z
      .array(z.object({ check: z.enum(CHECK_NAMES), status: CheckStatus, ...Recommendation.shape }))
      .meta({ description: 'Every recommendation, the heaviest-weighted check first' }),
    support: Support,
  })
  .meta({ id: 'DomainHealthReport' })
export type DomainHealthReport = z.infer<typeof DomainHealthReport>

export const PlatformDomain = z
  .object({
    domain: z.string(),
    ...postureFields,
    error: z.string().nullable().meta({ description: 'Why the records could not be read (the other fields are then empty); null on success' }),
  })
  .meta({ id: 'PlatformDomain' })
export type PlatformDomain = z.infer<typeof PlatformDomain>

export const DomainList = z
  .object({
    source: z
      .enum(['PLATFORM_DOMAINS', 'data file'])
      .meta({ description: 'Where the list came from: the PLATFORM_DOMAINS setting, or the file shipped with the service' }),
    count: z.number().int(),
    domains: z.array(PlatformDomain),
    support: Support,
  })
  .meta({ id: 'DomainList' })
export type DomainList = z.infer<typeof DomainList>

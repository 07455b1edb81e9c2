import 'server-only'
import { z } from 'zod'
import { config } from '@/lib/config'
import { resolve, type DnsResult } from '@/lib/dns/resolver'
import { checkBimi } from '@/lib/domains/checks/bimi'
import { checkCaa } from '@/lib/domains/checks/caa'
import { checkDane } from '@/lib/domains/checks/dane'
import { checkDkim } from '@/lib/domains/checks/dkim'
import { checkDmarc, isDmarcRecord, parseDmarc } from '@/lib/domains/checks/dmarc'
import { checkDnssec } from '@/lib/domains/checks/dnssec'
import { checkMtaSts } from '@/lib/domains/checks/mta-sts'
import { checkMx } from '@/lib/domains/checks/mx'
import { checkSpf, isSpfRecord } from '@/lib/domains/checks/spf'
import { checkTlsRpt } from '@/lib/domains/checks/tls-rpt'
import { ancestors, lookup, LookupFailed, present, type Dns } from '@/lib/domains/dns'
import { normaliseDomain } from '@/lib/domains/domain-name'
import platformDomainsFile from '@/lib/domains/platform-domains.json'
import {
  CHECK_NAMES,
  type CheckBase,
  type CheckName,
  type CheckStatus,
  type DomainChecks,
  type DomainHealthReport,
  type DomainList,
  type PlatformDomain,
} from '@/lib/domains/schemas'
import { CHECK_WEIGHTS, scoreChecks } from '@/lib/domains/score'
import { fetchMtaStsPolicy, type PolicyFetch } from '@/lib/domains/upstream'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { support } from '@/lib/support'
import { singleFlight } from '@/lib/upstream/cache'

export interface DomainDeps {
  dns: Dns
  fetchPolicy: (domain: string) => Promise<PolicyFetch>
  /** Milliseconds all checks together may take once the domain has answered. */
  budgetMs: number
}

const defaultDeps = (): DomainDeps => ({ dns: { resolve }, fetchPolicy: (d) => fetchMtaStsPolicy(d), budgetMs: 2 * config.UPSTREAM_TIMEOUT_MS })

const MAX_LISTED = 50
const PlatformDomainsFile = z.object({ domains: z.array(z.string()).min(1) })

export function platformDomainNames(): { source: DomainList['source']; names: string[] } {
  if (config.PLATFORM_DOMAINS.length > 0) return { source: 'PLATFORM_DOMAINS', names: config.PLATFORM_DOMAINS.slice(0, MAX_LISTED) }
  return { source: 'data file', names: PlatformDomainsFile.parse(platformDomainsFile).domains.slice(0, MAX_LISTED) }
}

export function isPlatformDomain(domain: string): boolean {
  return platformDomainNames().names.some((n) => {
    const r = normaliseDomain(n)
    return r.ok && r.domain === domain
  })
}

function requireDomain(input: string): string {
  const r = normaliseDomain(input)
  if (!r.ok) throw new AppError('invalid_input', `domain: ${r.problem}`)
  return r.domain
}

/** The resolver answered for the domain itself; anything but NOERROR/NXDOMAIN ends the check. */
function requireAnswer(r: DnsResult, domain: string) {
  if (r.rcode === 'NXDOMAIN') throw new AppError('not_found', `${domain} does not exist in DNS (NXDOMAIN).`)
  if (r.rcode !== 'NOERROR')
    throw new AppError(
      'upstream_failed',
      `The resolver answered ${r.rcode} for ${domain}: its name servers did not answer, or its DNSSEC signatures do not validate.`,
    )
}

async function nameServers(dns: Dns, domain: string, own: DnsResult): Promise<string[]> {
  const list = (r: DnsResult) => r.records.map(present).sort()
  if (own.records.length) return list(own)
  // A host below a zone apex has no NS of its own: report the enclosing zone's.
  const up = await Promise.all(ancestors(domain).map((n) => lookup(dns, n, 'NS')))
  return list(up.find((r) => r.records.length > 0) ?? own)
}

const mxStrings = (mx: DnsResult) =>
  mx.records
    .flatMap((r) => (r.type === 'MX' ? [r] : []))
    .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange))
    .map(present)

// ----- the list -------------------------------------------------------------------------------

async function readPosture(dns: Dns, name: string): Promise<PlatformDomain> {
  const normalised = normaliseDomain(name)
  const empty = { authoritativeNameServers: [], mxRecords: [], spfRecord: null, dmarcRecord: null, dmarcPolicy: null }
  if (!normalised.ok) return { domain: name, ...empty, error: `Not a valid domain name: ${normalised.problem}.` }
  const domain = normalised.domain
  const [ns, mx, txt, dmarc] = await Promise.all([
    lookup(dns, domain, 'NS'),
    lookup(dns, domain, 'MX'),
    lookup(dns, domain, 'TXT'),
    lookup(dns, `_dmarc.${domain}`, 'TXT'),
  ])
  if (ns.rcode === 'NXDOMAIN') return { domain, ...empty, error: `${domain} does not exist in DNS (NXDOMAIN).` }
  const texts = (r: DnsResult) => r.records.map(present)
  const dmarcRecord = texts(dmarc).find(isDmarcRecord) ?? null
  const p = dmarcRecord ? parseDmarc(dmarcRecord).tags.p : null
  return {
    domain,
    authoritativeNameServers: await nameServers(dns, domain, ns),
    mxRecords: mxStrings(mx),
    spfRecord: texts(txt).find(isSpfRecord) ?? null,
    dmarcRecord,
    dmarcPolicy: p === 'none' || p === 'quarantine' || p === 'reject' ? p : null,
    error: null,
  }
}

// GET /api/domains - the platform's domains with their published MX, SPF, DMARC and NS records
export async function listPlatformDomains(deps: Pick<DomainDeps, 'dns'> = defaultDeps()): Promise<DomainList> {
  const { source, names } = platformDomainNames()
  const settled = await Promise.allSettled(names.map((n) => readPosture(deps.dns, n)))
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []))
  // Every lookup failing is a resolver outage, not a fact about the domains.
  if (failures.length === names.length && failures.length > 0) throw failures[0]
  const domains = settled.map((s, i) =>
    s.status === 'fulfilled'
      ? s.value
      : {
          domain: names[i],
          authoritativeNameServers: [],
          mxRecords: [],
          spfRecord: null,
          dmarcRecord: null,
          dmarcPolicy: null,
          error: `Records could not be read: ${errorText(s.reason)}`,
        },
  )
  return { source, count: domains.length, domains, support: support() }
}

// ----- the health check -----------------------------------------------------------------------

const EMPTY: { [K in CheckName]: Omit<DomainChecks[K], keyof CheckBase> } = {
  mx: { nullMx: false, hosts: [] },
  spf: { record: null, lookupCount: 0, voidLookupCount: 0, allQualifier: null, tree: [] },
  dmarc: { record: null, policyDomain: null, inherited: false, policy: null, testing: false, tags: null, reportDestinations: [] },
  dkim: { selectorsProbed: [], domainKeyNodeExists: false, keys: [] },
  mtaSts: { record: null, id: null, policyUrl: null, policy: null, uncoveredMxHosts: [] },
  tlsRpt: { record: null, rua: [] },
  bimi: { record: null, logoUrl: null, authorityUrl: null },
  dnssec: { authenticated: false },
  caa: { foundAt: null, issuers: [], wildcardIssuers: [], iodef: [] },
  dane: { hosts: [] },
}

function info<K extends CheckName>(name: K, detail: string): DomainChecks[K] {
  return { ...EMPTY[name], status: 'info', detail, records: [], warnings: [], recommendation: null } as unknown as DomainChecks[K]
}

class BudgetExceeded extends Error {}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

async function runCheck<K extends CheckName>(name: K, deadline: number, budgetMs: number, run: () => Promise<DomainChecks[K]>): Promise<DomainChecks[K]> {
  let timer: NodeJS.Timeout | undefined
  const budget = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BudgetExceeded()), Math.max(0, deadline - Date.now()))
  })
  try {
    return await Promise.race([run(), budget])
  } catch (error) {
    if (error instanceof BudgetExceeded) return info(name, `Not checked: the lookups did not finish within the ${budgetMs / 1000} s budget.`)
    if (!(error instanceof LookupFailed || error instanceof AppError)) log.error('domain check failed', { check: name, error: errorText(error) })
    return info(name, `Not checked: ${errorText(error).replace(/\.$/, '')}.`)
  } finally {
    clearTimeout(timer)
  }
}

async function buildReport(domain: string, selectors: string[], deps: DomainDeps): Promise<DomainHealthReport> {
  const { dns } = deps
  // The first answers decide whether there is anything to check; a resolver outage fails here.
  const [ns, mx] = await Promise.all([dns.resolve(domain, 'NS'), dns.resolve(domain, 'MX')])
  requireAnswer(ns, domain)
  requireAnswer(mx, domain)
  const deadline = Date.now() + deps.budgetMs
  const run = <K extends CheckName>(name: K, fn: () => Promise<DomainChecks[K]>) => runCheck(name, deadline, deps.budgetMs, fn)

  const mxRows = mx.records.flatMap((r) => (r.type === 'MX' ? [r] : []))
  const nullMx = mxRows.some((r) => r.exchange === '')
  const mxHosts = nullMx ? [] : [...new Set(mxRows.sort((a, b) => a.priority - b.priority).map((r) => r.exchange))]
  const noMail = nullMx ? 'Not applicable: the domain accepts no mail (null MX).' : 'Not applicable: the domain has no MX hosts.'

  const dmarc = run('dmarc', () => checkDmarc(dns, domain))
  const [checksList, servers] = await Promise.all([
    Promise.all([
      run('mx', () => checkMx(dns, domain, mx)),
      run('spf', () => checkSpf(dns, domain, { acceptsMail: !nullMx })),
      dmarc,
      run('dkim', () => checkDkim(dns, domain, selectors)),
      mxHosts.length ? run('mtaSts', () => checkMtaSts(dns, domain, mxHosts, deps.fetchPolicy)) : info('mtaSts', noMail),
      mxHosts.length ? run('tlsRpt', () => checkTlsRpt(dns, domain)) : info('tlsRpt', noMail),
      run('bimi', async () => {
        const d = await dmarc
        return checkBimi(dns, domain, d.policy === 'quarantine' || d.policy === 'reject')
      }),
      Promise.resolve(checkDnssec(domain, ns.authenticated || mx.authenticated)),
      run('caa', () => checkCaa(dns, domain)),
      mxHosts.length ? run('dane', () => checkDane(dns, mxHosts)) : info('dane', noMail),
    ] as const),
    nameServers(dns, domain, ns).catch(() => ns.records.map(present)),
  ])
  const [mxCheck, spf, dmarcCheck, dkimFound, mtaSts, tlsRpt, bimi, dnssec, caa, dane] = checksList
  // A domain whose SPF authorises no sender sends no mail, so having no DKIM key is expected.
  const sendsNoMail = spf.record !== null && /^v=spf1\s+-all\s*$/i.test(spf.record)
  const dkim =
    sendsNoMail && dkimFound.status === 'not_found'
      ? {
          ...dkimFound,
          status: 'info' as const,
          detail: `Not applicable: SPF authorises no sender (v=spf1 -all); no DKIM key found among the ${dkimFound.selectorsProbed.length} probed selectors.`,
          recommendation: null,
        }
      : dkimFound
  const checks: DomainChecks = { mx: mxCheck, spf, dmarc: dmarcCheck, dkim, mtaSts, tlsRpt, bimi, dnssec, caa, dane }

  const statuses = Object.fromEntries(CHECK_NAMES.map((n) => [n, checks[n].status])) as Record<CheckName, CheckStatus>
  const { score, grade } = scoreChecks(statuses)
  const summary: Record<CheckStatus, number> = { pass: 0, warn: 0, fail: 0, info: 0, not_found: 0 }
  for (const s of Object.values(statuses)) summary[s]++
  const recommendations = CHECK_NAMES.filter((n) => checks[n].recommendation)
    .sort((a, b) => CHECK_WEIGHTS[b] - CHECK_WEIGHTS[a])
    .map((n) => ({ check: n, status: checks[n].status, ...checks[n].recommendation! }))
  const ownDmarc = dmarcCheck.inherited ? null : dmarcCheck.record
  const p = dmarcCheck.inherited ? null : dmarcCheck.tags?.p

  return {
    domain,
    isPlatformDomain: isPlatformDomain(domain),
    checkedAt: new Date().toISOString(),
    authoritativeNameServers: servers,
    mxRecords: mxStrings(mx),
    spfRecord: spf.record,
    dmarcRecord: ownDmarc,
    dmarcPolicy: p === 'none' || p === 'quarantine' || p === 'reject' ? p : null,
    score,
    grade,
    summary,
    checks,
    recommendations,
    support: support(),
  }
}

// GET /api/domains/{domain} - DNS and mail-security health check of any domain
export async function checkDomainHealth(input: { domain: string; selectors?: string[] }, deps: DomainDeps = defaultDeps()): Promise<DomainHealthReport> {
  const domain = requireDomain(input.domain)
  const selectors = [...new Set((input.selectors ?? []).map((s) => s.trim().toLowerCase()).filter(Boolean))]
  // Concurrent identical requests share one run of the lookups.
  return singleFlight(`domains:health:${domain}:${selectors.join(',')}`, () => buildReport(domain, selectors, deps))
}

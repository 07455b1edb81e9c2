import 'server-only'
import { findTenantInformation, graphConfigured, type GraphTenant } from '@/lib/directory/microsoft-graph'
import {
  fetchCredentialType,
  fetchOpenIdTenant,
  fetchUserRealm,
  type CredentialType,
  type OpenIdTenant,
  type UserRealm,
} from '@/lib/directory/microsoft-identity'
import type { TenantInfo, TenantInfoQuery } from '@/lib/directory/schemas'
import { resolve, type DnsResult, type RecordType } from '@/lib/dns/resolver'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'

// Public facts about a Microsoft Entra tenant, each from the source that publishes it: OpenID
// discovery (id, region), user realm and credential type (brand, branding, SSO, sign-up), Graph
// when configured (display name, default domain), DNS (mail, SharePoint, the initial domain).
// Since 2025 no public source lists a tenant's domains, so the domain fields hold only what was
// observed: the queried domain, Graph's default domain and the initial *.onmicrosoft.com domain.

export interface TenantInfoDeps {
  openId: (tenant: string) => Promise<OpenIdTenant | null>
  userRealm: (domain: string) => Promise<UserRealm>
  credentialType: (domain: string) => Promise<CredentialType>
  /** null when Graph is not configured. */
  graph: ((by: { tenantId: string }) => Promise<GraphTenant | null>) | null
  dns: (name: string, type: RecordType) => Promise<DnsResult>
}

export const defaultTenantInfoDeps = (): TenantInfoDeps => ({
  openId: fetchOpenIdTenant,
  userRealm: fetchUserRealm,
  credentialType: fetchCredentialType,
  graph: graphConfigured() ? findTenantInformation : null,
  dns: resolve,
})

export const tenantLeaveUrl = (tenantId: string) => `https://myaccount.microsoft.com/organizations?tenantId=${tenantId}`

const INITIAL_DOMAIN = /^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.onmicrosoft\.com$/
// Microsoft 365 DKIM targets: selector1-<domain-with-dashes>._domainkey.<initial prefix> followed by
// .onmicrosoft.com (older domains) or .<x>-v1.dkim.mail.microsoft (domains added since May 2025).
const DKIM_TARGET = /^selector[12]-[a-z0-9-]+\._domainkey\.([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\.(?:onmicrosoft\.com|[a-z]-v[12]\.dkim\.mail\.microsoft)$/
const EXO_MX =
  /\.(?:mail\.protection\.outlook\.com|mx\.microsoft|mail\.protection\.office365\.us|protection\.office365\.us|mail\.protection\.partner\.outlook\.cn)$/
const DANE_MX = /\.mx\.microsoft$/
const PROVIDER_DOMAIN = /\.(?:onmicrosoft\.(?:com|us|de)|partner\.onmschina\.cn)$/

export const normaliseDomain = (d: string) => d.trim().toLowerCase().replace(/\.$/, '')
export const isExchangeOnlineMx = (host: string) => EXO_MX.test(host)
/** Domains under the provider's default suffixes, which `customDomainsOnly` leaves out. */
export const isProviderDomain = (d: string) => PROVIDER_DOMAIN.test(d)
export const initialDomainPrefix = (d: string) => INITIAL_DOMAIN.exec(d)?.[1] ?? null

/** The initial-domain prefix a Microsoft 365 DKIM CNAME target reveals, or null. */
export function prefixFromDkimTarget(target: string): string | null {
  return DKIM_TARGET.exec(normaliseDomain(target))?.[1] ?? null
}

async function lookupGraph(deps: TenantInfoDeps, tenantId: string) {
  if (!deps.graph) return { tenant: null, state: 'not_configured' as const }
  try {
    const tenant = await deps.graph({ tenantId })
    return { tenant, state: tenant ? ('used' as const) : ('not_found' as const) }
  } catch (error) {
    // Graph only adds the display name and default domain; its outage should not hide the rest.
    if (!(error instanceof AppError) || error.status < 500) throw error
    log.warn('graph tenant lookup failed; answering without it', { tenantId, error: error.message })
    return { tenant: null, state: 'failed' as const }
  }
}

/** Initial-domain prefixes named by the domain's Microsoft 365 DKIM selectors (unverified). */
async function dkimPrefixes(deps: TenantInfoDeps, domain: string): Promise<string[]> {
  const answers = await Promise.all(['selector1', 'selector2'].map((s) => deps.dns(`${s}._domainkey.${domain}`, 'CNAME')))
  const prefixes = answers.flatMap((a) => a.records).map((r) => (r.type === 'CNAME' ? prefixFromDkimTarget(r.value) : null))
  return [...new Set(prefixes.filter((p): p is string => p !== null))]
}

async function resolves(deps: TenantInfoDeps, host: string): Promise<boolean> {
  const r = await deps.dns(host, 'A')
  return r.rcode === 'NOERROR' && (r.records.length > 0 || r.chain.length > 0)
}

async function emailConfiguration(deps: TenantInfoDeps, domain: string) {
  const mx = await deps.dns(domain, 'MX')
  const hosts = mx.records
    .flatMap((r) => (r.type === 'MX' && r.exchange ? [{ priority: r.priority, host: r.exchange }] : []))
    .sort((a, b) => a.priority - b.priority || a.host.localeCompare(b.host))
    .map((r) => r.host)
  const mxRecords = [...new Set(hosts)]
  // DANE for Exchange Online inbound mail exists only on the *.mx.microsoft hosts, and a TLSA
  // record counts only when the resolver validated it (AD).
  const dane = await Promise.all(
    mxRecords
      .filter((h) => DANE_MX.test(h))
      .map(async (h) => {
        const tlsa = await deps.dns(`_25._tcp.${h}`, 'TLSA')
        return tlsa.authenticated && tlsa.records.length > 0
      }),
  )
  return { domain, mxRecords, exoSmtpDaneDnsSecEnabled: dane.some(Boolean) }
}

/** The tenant information for exactly one of tenantId/tenantID/domainName (the query schema ensures it). */
export async function lookupTenantInfo(query: TenantInfoQuery, deps: TenantInfoDeps = defaultTenantInfoDeps()): Promise<TenantInfo> {
  const tenantIdInput = (query.tenantId ?? query.tenantID)?.toLowerCase()
  const domainInput = query.domainName ? normaliseDomain(query.domainName) : undefined
  const input = (tenantIdInput ?? domainInput)!

  const openId = await deps.openId(input)
  if (!openId) throw new AppError('not_found', `No Microsoft Entra tenant found for '${input}'.`)
  const { tenantId } = openId

  const graphP = lookupGraph(deps, tenantId)
  // For a tenant id, the only domain to read sign-in and DNS data from is Graph's default domain.
  const queriedDomain = domainInput ?? (await graphP).tenant?.defaultDomainName ?? null
  const analyse = (d: string) => !query.skipEmailConfig && !(query.customDomainsOnly && isProviderDomain(d))
  // The queried domain's mail lookups need nothing from the steps below, so they start now.
  const queriedEmail = queriedDomain && analyse(queriedDomain) ? emailConfiguration(deps, queriedDomain) : null
  // Awaited below; this only keeps an early failure elsewhere from leaving its rejection unhandled.
  queriedEmail?.catch(() => {})
  const [graph, realm, credentials, dkim] = await Promise.all([
    graphP,
    queriedDomain ? deps.userRealm(queriedDomain) : null,
    queriedDomain ? deps.credentialType(queriedDomain) : null,
    queriedDomain ? dkimPrefixes(deps, queriedDomain) : [],
  ])

  let prefix = initialDomainPrefix(graph.tenant?.defaultDomainName ?? '') ?? (queriedDomain ? initialDomainPrefix(queriedDomain) : null)
  // A DKIM CNAME can point anywhere; trust its prefix only when that initial domain is this tenant's.
  for (const candidate of prefix ? [] : dkim) {
    if ((await deps.openId(`${candidate}.onmicrosoft.com`))?.tenantId === tenantId) {
      prefix = candidate
      break
    }
  }
  const initialDomain = prefix ? `${prefix}.onmicrosoft.com` : null

  const known = [...new Set([queriedDomain, graph.tenant?.defaultDomainName, initialDomain].filter((d): d is string => Boolean(d)))]
  const analysed = known.filter(analyse)
  const spoHosts = prefix ? [`${prefix}.sharepoint.com`, `${prefix}-my.sharepoint.com`] : []
  const [email, spo] = await Promise.all([
    Promise.all(analysed.map((d) => (d === queriedDomain && queriedEmail ? queriedEmail : emailConfiguration(deps, d)))),
    Promise.all(spoHosts.map(async (h) => ((await resolves(deps, h)) ? h : null))),
  ])
  const spoDomains = spo.filter((h): h is string => h !== null)
  const mxRecords = [...new Set(email.flatMap((e) => e.mxRecords))]

  const defaultDomain: [string, TenantInfo['discovery']['defaultDomainNameSource']] = graph.tenant?.defaultDomainName
    ? [graph.tenant.defaultDomainName, 'graph']
    : initialDomain
      ? [initialDomain, 'initial_domain']
      : queriedDomain
        ? [queriedDomain, 'queried_domain']
        : ['', 'unknown']

  return {
    tenantId,
    federationBrandName: realm?.federationBrandName ?? graph.tenant?.federationBrandName ?? null,
    tenantDisplayName: graph.tenant?.displayName ?? null,
    defaultDomainName: defaultDomain[0],
    bannerLogo: credentials?.bannerLogo ?? null,
    tenantRegion: openId.region,
    desktopSsoEnabled: credentials?.desktopSsoEnabled ?? false,
    verifiedEmailSignUpDisallowed: credentials?.signupDisallowed ?? false,
    tenantIsUnmanaged: credentials?.isUnmanaged ?? false,
    tenantLeaveUrl: tenantLeaveUrl(tenantId),
    tenantUsesExo: mxRecords.some(isExchangeOnlineMx),
    mxRecords,
    emailConfiguration: email,
    tenantUsesSpo: spoDomains.length > 0,
    spoDomains,
    verifiedDomains: known.length,
    additionalDomains: known.filter((d) => d !== queriedDomain),
    discovery: {
      queriedDomain,
      initialDomain,
      namespaceType: realm?.namespaceType ?? null,
      cloudInstance: openId.cloudInstance ?? realm?.cloudInstance ?? null,
      tenantRegionSubScope: openId.regionSubScope,
      defaultDomainNameSource: defaultDomain[1],
      sources: {
        graph: graph.state,
        signIn: queriedDomain ? 'used' : 'no_domain',
        email: query.skipEmailConfig ? 'skipped' : queriedDomain ? 'used' : 'no_domain',
      },
    },
  }
}

import { afterAll, describe, expect, it } from 'vitest'
import type { GraphTenant } from '@/lib/directory/microsoft-graph'
import type { OpenIdTenant } from '@/lib/directory/microsoft-identity'
import { startFakeDoh, type Zone } from '../../test-support/fake-doh'
import { fixture, fixtureJson } from '../../test-support/fake-upstream'

// Field mapping of lookupTenantInfo: the Microsoft adapters are replaced by the recorded payloads
// (parsed by the real parsers), DNS is the real resolver against zone fixtures on a loopback DoH.

const contosoZone = fixtureJson<Zone>('dns/tenant-contoso.json')
const zone: Zone = {
  records: { ...contosoZone.records, ...fixtureJson<Zone>('dns/tenant-fabrikam.json').records },
  secure: contosoZone.secure,
}
const doh = await startFakeDoh(zone)
// Config is read once, at first import: everything that reads it is imported after this line.
process.env.DOH_URL = doh.url
const { lookupTenantInfo } = await import('@/lib/directory/tenant-info')
const { resolve } = await import('@/lib/dns/resolver')
const { parseCredentialType, parseOpenIdConfiguration, parseUserRealm } = await import('@/lib/directory/microsoft-identity')
const { parseTenantInformation } = await import('@/lib/directory/microsoft-graph')
const { TenantInfoQuery } = await import('@/lib/directory/schemas')
const { AppError } = await import('@/lib/errors')
afterAll(() => doh.close())

const CONTOSO = '6babcaad-604b-40ac-a9d7-9fd97c0b779f'
const FABRIKAM = '0f3b6c1e-6a5e-4c8e-9d55-1c2a3b4d5e6f'
const tenants: Record<string, string> = {
  'contoso.com': CONTOSO,
  'contoso18839.onmicrosoft.com': CONTOSO,
  [CONTOSO]: CONTOSO,
  'fabrikam.com': FABRIKAM,
  [FABRIKAM]: FABRIKAM,
}

// The recorded v2 document with its sanitised tenant id replaced by the scenario's.
const openIdFor = (tid: string) =>
  fixture('microsoft-identity/openid-configuration-v2.0-tenant-sanitized-88888888.json').replaceAll('88888888-8888-8888-8888-888888888888', tid)

function deps(options: { graph?: 'contoso' | 'none' | 'failing' } = {}) {
  const calls: string[] = []
  return {
    calls,
    deps: {
      openId: async (t: string): Promise<OpenIdTenant | null> => {
        calls.push(`openId ${t}`)
        const tid = tenants[t]
        return tid
          ? parseOpenIdConfiguration(200, openIdFor(tid))
          : parseOpenIdConfiguration(400, fixture('microsoft-identity/openid-configuration-error-AADSTS90002-unknown-tenant-xyz.com.json'))
      },
      userRealm: async (d: string) => {
        calls.push(`realm ${d}`)
        return parseUserRealm(fixture('microsoft-identity/getuserrealm-srf-json1-federated-bbc.co.uk.json'))
      },
      credentialType: async (d: string) => {
        calls.push(`credentialType ${d}`)
        return parseCredentialType(fixture('microsoft-identity/getcredentialtype-managed-exists-with-tenant-branding.json'))
      },
      graph:
        options.graph === undefined || options.graph === 'none'
          ? null
          : async ({ tenantId }: { tenantId: string }): Promise<GraphTenant | null> => {
              calls.push(`graph ${tenantId}`)
              if (options.graph === 'failing') throw new AppError('upstream_failed', 'Microsoft Graph answered HTTP 500.')
              return tenantId === CONTOSO
                ? parseTenantInformation(200, fixture('microsoft-graph/findTenantInformationByDomainName-docs-example-contoso.com.json'))
                : parseTenantInformation(404, fixture('microsoft-graph/findTenantInformationByDomainName-error-Directory_ObjectNotFound.json'))
            },
      dns: resolve,
    },
  }
}

const query = (q: Record<string, string>) => TenantInfoQuery.parse(q)

describe('lookupTenantInfo', () => {
  it('maps every source for a domain without Graph', async () => {
    const { deps: d } = deps()
    const info = await lookupTenantInfo(query({ domainName: 'Contoso.com' }), d)
    expect(info).toEqual({
      tenantId: CONTOSO,
      federationBrandName: 'BBC',
      tenantDisplayName: null,
      defaultDomainName: 'contoso18839.onmicrosoft.com',
      bannerLogo: expect.stringContaining('/logintenantbranding/0/bannerlogo?ts=638100893668399336'),
      tenantRegion: 'WW',
      desktopSsoEnabled: false,
      verifiedEmailSignUpDisallowed: true,
      tenantIsUnmanaged: false,
      tenantLeaveUrl: `https://myaccount.microsoft.com/organizations?tenantId=${CONTOSO}`,
      tenantUsesExo: true,
      mxRecords: ['contoso-com.p-v1.mx.microsoft', 'contoso-com.mail.protection.outlook.com', 'contoso18839.mail.protection.outlook.com'],
      emailConfiguration: [
        { domain: 'contoso.com', mxRecords: ['contoso-com.p-v1.mx.microsoft', 'contoso-com.mail.protection.outlook.com'], exoSmtpDaneDnsSecEnabled: true },
        { domain: 'contoso18839.onmicrosoft.com', mxRecords: ['contoso18839.mail.protection.outlook.com'], exoSmtpDaneDnsSecEnabled: false },
      ],
      tenantUsesSpo: true,
      spoDomains: ['contoso18839.sharepoint.com', 'contoso18839-my.sharepoint.com'],
      verifiedDomains: 2,
      additionalDomains: ['contoso18839.onmicrosoft.com'],
      discovery: {
        queriedDomain: 'contoso.com',
        initialDomain: 'contoso18839.onmicrosoft.com',
        namespaceType: 'Federated',
        cloudInstance: 'microsoftonline.com',
        tenantRegionSubScope: null,
        defaultDomainNameSource: 'initial_domain',
        sources: { graph: 'not_configured', signIn: 'used', email: 'used' },
      },
    })
  })

  it('leaves provider-suffix domains out with customDomainsOnly', async () => {
    const info = await lookupTenantInfo(query({ domainName: 'contoso.com', customDomainsOnly: 'true' }), deps().deps)
    expect(info.emailConfiguration.map((e) => e.domain)).toEqual(['contoso.com'])
    expect(info.mxRecords).toEqual(['contoso-com.p-v1.mx.microsoft', 'contoso-com.mail.protection.outlook.com'])
    expect(info.additionalDomains).toEqual(['contoso18839.onmicrosoft.com'])
  })

  it('answers empty email fields with skipEmailConfig, and keeps the rest', async () => {
    const info = await lookupTenantInfo(query({ domainName: 'contoso.com', skipEmailConfig: 'true' }), deps().deps)
    expect(info).toMatchObject({ mxRecords: [], emailConfiguration: [], tenantUsesExo: false, tenantUsesSpo: true })
    expect(info.discovery.sources.email).toBe('skipped')
  })

  it('does not trust a DKIM target naming another tenant’s initial domain', async () => {
    const { deps: d, calls } = deps()
    const info = await lookupTenantInfo(query({ domainName: 'fabrikam.com' }), d)
    expect(calls).toContain('openId contoso18839.onmicrosoft.com')
    expect(info).toMatchObject({
      tenantId: FABRIKAM,
      defaultDomainName: 'fabrikam.com',
      tenantUsesSpo: false,
      spoDomains: [],
      verifiedDomains: 1,
      additionalDomains: [],
      tenantUsesExo: true,
      // The TLSA record exists but does not validate.
      emailConfiguration: [{ domain: 'fabrikam.com', mxRecords: ['fabrikam-com.r-v1.mx.microsoft'], exoSmtpDaneDnsSecEnabled: false }],
    })
    expect(info.discovery).toMatchObject({ initialDomain: null, defaultDomainNameSource: 'queried_domain' })
  })

  it('knows only the OpenID facts for a tenant id without Graph', async () => {
    const { deps: d, calls } = deps()
    const info = await lookupTenantInfo(query({ tenantID: CONTOSO.toUpperCase() }), d)
    expect(calls).toEqual([`openId ${CONTOSO}`])
    expect(info).toMatchObject({
      tenantId: CONTOSO,
      tenantRegion: 'WW',
      defaultDomainName: '',
      federationBrandName: null,
      bannerLogo: null,
      mxRecords: [],
      emailConfiguration: [],
      spoDomains: [],
      verifiedDomains: 0,
      additionalDomains: [],
    })
    expect(info.discovery).toMatchObject({
      queriedDomain: null,
      defaultDomainNameSource: 'unknown',
      sources: { graph: 'not_configured', signIn: 'no_domain', email: 'no_domain' },
    })
  })

  it('uses Graph’s default domain for a tenant id when Graph is configured', async () => {
    const { deps: d, calls } = deps({ graph: 'contoso' })
    const info = await lookupTenantInfo(query({ tenantId: CONTOSO }), d)
    expect(calls).toContain('realm contoso18839.onmicrosoft.com')
    expect(info).toMatchObject({
      tenantDisplayName: 'Contoso, Ltd',
      defaultDomainName: 'contoso18839.onmicrosoft.com',
      tenantUsesSpo: true,
      verifiedDomains: 1,
      emailConfiguration: [
        { domain: 'contoso18839.onmicrosoft.com', mxRecords: ['contoso18839.mail.protection.outlook.com'], exoSmtpDaneDnsSecEnabled: false },
      ],
    })
    expect(info.discovery).toMatchObject({ defaultDomainNameSource: 'graph', sources: { graph: 'used', signIn: 'used' } })
  })

  it('answers without Graph when Graph fails or does not know the tenant', async () => {
    const failing = await lookupTenantInfo(query({ domainName: 'contoso.com' }), deps({ graph: 'failing' }).deps)
    expect(failing).toMatchObject({ tenantDisplayName: null, defaultDomainName: 'contoso18839.onmicrosoft.com' })
    expect(failing.discovery.sources.graph).toBe('failed')
    const unknown = await lookupTenantInfo(query({ domainName: 'fabrikam.com' }), deps({ graph: 'contoso' }).deps)
    expect(unknown.discovery.sources.graph).toBe('not_found')
  })

  it('throws not_found for a tenant Microsoft does not know', async () => {
    await expect(lookupTenantInfo(query({ domainName: 'unknown-tenant.example' }), deps().deps)).rejects.toMatchObject({ code: 'not_found', status: 404 })
  })
})

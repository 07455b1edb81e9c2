import { describe, expect, it } from 'vitest'
import { parseTenantInformation } from '@/lib/directory/microsoft-graph'
import { parseCredentialType, parseOpenIdConfiguration, parseUserRealm, tenantIdFromIssuer } from '@/lib/directory/microsoft-identity'
import { TenantInfoQuery } from '@/lib/directory/schemas'
import { initialDomainPrefix, isExchangeOnlineMx, isProviderDomain, prefixFromDkimTarget } from '@/lib/directory/tenant-info'
import { AppError } from '@/lib/errors'
import { UpstreamMalformed, UpstreamStatus } from '@/lib/upstream/http'
import { fixture } from '../../test-support/fake-upstream'

// Recorded payloads (tests/fixtures/microsoft-*/SOURCES.md) through each adapter's parser.

const openIdV2 = fixture('microsoft-identity/openid-configuration-v2.0-tenant-sanitized-88888888.json')
const openIdV1 = fixture('microsoft-identity/openid-configuration-v1-login.windows.net-tenant-31537af4.json')
const openIdUnknown = fixture('microsoft-identity/openid-configuration-error-AADSTS90002-unknown-tenant-xyz.com.json')
const realmFederated = fixture('microsoft-identity/getuserrealm-srf-json1-federated-bbc.co.uk.json')
const credentialType = fixture('microsoft-identity/getcredentialtype-managed-exists-with-tenant-branding.json')
const graphContoso = fixture('microsoft-graph/findTenantInformationByDomainName-docs-example-contoso.com.json')
const graphNotFound = fixture('microsoft-graph/findTenantInformationByDomainName-error-Directory_ObjectNotFound.json')

describe('OpenID discovery', () => {
  it('reads the tenant id from a v2 issuer, and the region', () => {
    expect(parseOpenIdConfiguration(200, openIdV2)).toEqual({
      tenantId: '88888888-8888-8888-8888-888888888888',
      region: 'WW',
      regionSubScope: null,
      cloudInstance: 'microsoftonline.com',
    })
  })

  it('reads the tenant id from a v1 issuer (sts.windows.net)', () => {
    expect(parseOpenIdConfiguration(200, openIdV1)).toMatchObject({ tenantId: '31537af4-6d77-4bb9-a681-d2394888ea26', region: 'AS' })
  })

  it('reads a government region sub-scope when present', () => {
    const gov = JSON.stringify({ ...JSON.parse(openIdV2), tenant_region_scope: 'NA', tenant_region_sub_scope: 'GCC' })
    expect(parseOpenIdConfiguration(200, gov)).toMatchObject({ region: 'NA', regionSubScope: 'GCC' })
  })

  it('answers null for AADSTS90002 (tenant not found)', () => {
    expect(parseOpenIdConfiguration(400, openIdUnknown)).toBeNull()
  })

  it('throws for other error answers and for issuers without a tenant id', () => {
    expect(() => parseOpenIdConfiguration(400, JSON.stringify({ error: 'invalid_request', error_codes: [900144] }))).toThrow(UpstreamStatus)
    expect(() => parseOpenIdConfiguration(400, '<html>')).toThrow(UpstreamMalformed)
    const common = JSON.stringify({ ...JSON.parse(openIdV2), issuer: 'https://login.microsoftonline.com/{tenantid}/v2.0' })
    expect(() => parseOpenIdConfiguration(200, common)).toThrow(UpstreamMalformed)
  })

  it.each([
    ['https://login.microsoftonline.com/6BABCAAD-604B-40AC-A9D7-9FD97C0B779F/v2.0', '6babcaad-604b-40ac-a9d7-9fd97c0b779f'],
    ['https://sts.windows.net/31537af4-6d77-4bb9-a681-d2394888ea26/', '31537af4-6d77-4bb9-a681-d2394888ea26'],
    ['https://login.microsoftonline.com/x31537af4-6d77-4bb9-a681-d2394888ea26/v2.0', null],
    ['not a url', null],
  ])('tenantIdFromIssuer(%s)', (issuer, expected) => {
    expect(tenantIdFromIssuer(issuer)).toBe(expected)
  })
})

describe('user realm', () => {
  it('maps the federated sample', () => {
    expect(parseUserRealm(realmFederated)).toEqual({ namespaceType: 'Federated', federationBrandName: 'BBC', cloudInstance: 'microsoftonline.com' })
  })

  it('treats unfamiliar namespace types as Unknown and empty brands as null', () => {
    expect(parseUserRealm(JSON.stringify({ NameSpaceType: 'Whatever', FederationBrandName: '' }))).toEqual({
      namespaceType: 'Unknown',
      federationBrandName: null,
      cloudInstance: null,
    })
  })
})

describe('credential type', () => {
  it('maps the branded sample', () => {
    expect(parseCredentialType(credentialType)).toEqual({
      bannerLogo:
        'https://aadcdn.msftauthimages.net/dbd5a2dd-oibn8aahvqzuk9axjezt8gipakuxvaklx7dra8ibacg/logintenantbranding/0/bannerlogo?ts=638100893668399336',
      desktopSsoEnabled: false,
      isUnmanaged: false,
      signupDisallowed: true,
    })
  })

  // No recorded body carries DesktopSsoEnabled or a throttle; both are derived from the sample here.
  it('reads DesktopSsoEnabled when the service reports it', () => {
    const sample = JSON.parse(credentialType)
    const withSso = { ...sample, EstsProperties: { ...sample.EstsProperties, DesktopSsoEnabled: true } }
    expect(parseCredentialType(JSON.stringify(withSso)).desktopSsoEnabled).toBe(true)
  })

  it('refuses a throttled answer instead of reporting its flags', () => {
    const throttled = JSON.stringify({ ...JSON.parse(credentialType), ThrottleStatus: 1 })
    const error = (() => {
      try {
        parseCredentialType(throttled)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'upstream_failed', details: { retryAfterSeconds: 120 } })
  })

  it('answers null branding when none is published', () => {
    const plain = JSON.stringify({ ...JSON.parse(credentialType), EstsProperties: { UserTenantBranding: null, DomainType: 3 } })
    expect(parseCredentialType(plain).bannerLogo).toBeNull()
  })
})

describe('Graph tenant information', () => {
  it('maps the contoso sample', () => {
    expect(parseTenantInformation(200, graphContoso)).toEqual({
      tenantId: '6babcaad-604b-40ac-a9d7-9fd97c0b779f',
      displayName: 'Contoso, Ltd',
      defaultDomainName: 'contoso18839.onmicrosoft.com',
      federationBrandName: null,
    })
  })

  it('answers null for Directory_ObjectNotFound, whatever the status', () => {
    expect(parseTenantInformation(404, graphNotFound)).toBeNull()
    expect(parseTenantInformation(400, graphNotFound)).toBeNull()
  })

  it('throws for other Graph errors', () => {
    const denied = JSON.stringify({ error: { code: 'Authorization_RequestDenied', message: 'Insufficient privileges' } })
    expect(() => parseTenantInformation(400, denied)).toThrow(UpstreamStatus)
  })
})

describe('DNS-derived facts', () => {
  it.each([
    ['selector1-contoso-com._domainkey.contoso18839.onmicrosoft.com', 'contoso18839'],
    ['selector2-contoso-com._domainkey.contoso18839.onmicrosoft.com.', 'contoso18839'],
    ['selector1-contoso-com._domainkey.contoso18839.r-v1.dkim.mail.microsoft', 'contoso18839'],
    ['selector2-marketing-contoso-com._domainkey.contoso.n-v1.dkim.mail.microsoft', 'contoso'],
    ['s1.domainkey.u123.wl.sendgrid.net', null],
    ['selector1-contoso-com._domainkey.contoso18839.mail.onmicrosoft.com', null],
  ])('prefixFromDkimTarget(%s) = %s', (target, prefix) => {
    expect(prefixFromDkimTarget(target)).toBe(prefix)
  })

  it('recognises Exchange Online MX hosts', () => {
    expect(isExchangeOnlineMx('contoso-com.mail.protection.outlook.com')).toBe(true)
    expect(isExchangeOnlineMx('contoso-com.p-v1.mx.microsoft')).toBe(true)
    expect(isExchangeOnlineMx('contoso-com.mail.protection.office365.us')).toBe(true)
    expect(isExchangeOnlineMx('aspmx.l.google.com')).toBe(false)
    expect(isExchangeOnlineMx('outlook.com.evil.example')).toBe(false)
  })

  it('separates provider-suffix domains and initial domains', () => {
    expect(isProviderDomain('contoso18839.onmicrosoft.com')).toBe(true)
    expect(isProviderDomain('contoso18839.mail.onmicrosoft.com')).toBe(true)
    expect(isProviderDomain('contoso.com')).toBe(false)
    expect(initialDomainPrefix('contoso18839.onmicrosoft.com')).toBe('contoso18839')
    expect(initialDomainPrefix('contoso18839.mail.onmicrosoft.com')).toBeNull()
  })
})

describe('query', () => {
  const parse = (q: Record<string, string>) => TenantInfoQuery.safeParse(q)

  it('needs exactly one of tenantId (or tenantID) and domainName', () => {
    expect(parse({}).success).toBe(false)
    expect(parse({ tenantId: '6babcaad-604b-40ac-a9d7-9fd97c0b779f', domainName: 'contoso.com' }).success).toBe(false)
    expect(parse({ tenantId: '6babcaad-604b-40ac-a9d7-9fd97c0b779f', tenantID: '6babcaad-604b-40ac-a9d7-9fd97c0b779f' }).success).toBe(false)
    expect(parse({ tenantID: '6babcaad-604b-40ac-a9d7-9fd97c0b779f' }).success).toBe(true)
    expect(parse({ domainName: 'Contoso.COM.' }).success).toBe(true)
  })

  it.each(['contoso', 'contoso..com', '-contoso.com', 'contoso.com/x', 'user@contoso.com', 'contoso.123', `${'a'.repeat(64)}.com`])(
    'rejects domainName %s',
    (domainName) => {
      expect(parse({ domainName }).success).toBe(false)
    },
  )

  it('parses boolean flags as words and rejects unknown parameters', () => {
    const ok = parse({ domainName: 'contoso.com', customDomainsOnly: 'true', skipEmailConfig: 'false' })
    expect(ok.success && ok.data).toMatchObject({ customDomainsOnly: true, skipEmailConfig: false })
    expect(parse({ domainName: 'contoso.com', skipEmailConfig: 'maybe' }).success).toBe(false)
    expect(parse({ domainName: 'contoso.com', tenantid: 'x' }).success).toBe(false)
  })
})

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { queriedNames, startFakeDoh, type Zone } from '../../test-support/fake-doh'
import { fixture, fixtureJson, sendJson, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { loadContract } from '../../test-support/openapi'

// GET /api/directory/tenantinfo through the built app, with Microsoft's login endpoints, Graph and
// a DoH resolver faked on loopback. The login and Graph fakes replay recorded payloads
// (tests/fixtures/microsoft-*/SOURCES.md); DNS answers come from hand-built zones
// (tests/fixtures/dns/tenant-*.json).

const CONTOSO = '6babcaad-604b-40ac-a9d7-9fd97c0b779f'
const FABRIKAM = '0f3b6c1e-6a5e-4c8e-9d55-1c2a3b4d5e6f'
const UNKNOWN_TO_GRAPH = '2a6f0d0c-3b1e-4f5a-8c7d-9e0f1a2b3c4d'
const GRAPH_APP_TENANT = 'c0ffee00-0000-4000-8000-000000000001'
const TOKEN = `token-${randomUUID()}`
const TIMEOUT_MS = 1500

// Inputs the fake login service knows, and the tenant each resolves to.
const tenants: Record<string, string> = {
  'contoso.com': CONTOSO,
  'contoso18839.onmicrosoft.com': CONTOSO,
  [CONTOSO]: CONTOSO,
  'fabrikam.com': FABRIKAM,
  [FABRIKAM]: FABRIKAM,
  [UNKNOWN_TO_GRAPH]: UNKNOWN_TO_GRAPH,
  'credtype-malformed.example': FABRIKAM,
  'credtype-throttled.example': FABRIKAM,
  'realm-500.example': FABRIKAM,
}
// Inputs for which a fake misbehaves.
const openIdFaults: Record<string, 'status500' | 'hang' | 'malformed'> = {
  'openid-500.example': 'status500',
  'openid-hang.example': 'hang',
  'openid-malformed.example': 'malformed',
}

// The recorded v2 document with its sanitised tenant id replaced by the scenario's tenant.
const openIdFor = (tid: string) =>
  fixture('microsoft-identity/openid-configuration-v2.0-tenant-sanitized-88888888.json').replaceAll('88888888-8888-8888-8888-888888888888', tid)
const domainOf = (login: string) => login.split('@')[1]?.toLowerCase() ?? ''

let login: FakeUpstream
let graph: FakeUpstream
let doh: Awaited<ReturnType<typeof startFakeDoh>>
let plain: RunningApp
let withGraph: RunningApp

beforeAll(async () => {
  login = await startFakeUpstream((req, res) => {
    const openId = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(req.path)
    if (openId) {
      const tenant = decodeURIComponent(openId[1]).toLowerCase()
      const fault = openIdFaults[tenant]
      if (fault === 'hang') return // never answers
      if (fault === 'status500') return sendJson(res, 500, { error: 'server_error' })
      if (fault === 'malformed') return sendJson(res, 200, '<html>Service unavailable</html>')
      if (tenants[tenant]) return sendJson(res, 200, openIdFor(tenants[tenant]))
      return sendJson(res, 400, fixture('microsoft-identity/openid-configuration-error-AADSTS90002-unknown-tenant-xyz.com.json'))
    }
    if (req.path === '/getuserrealm.srf') {
      if (domainOf(req.query.get('login') ?? '') === 'realm-500.example') return sendJson(res, 500, 'oops')
      return sendJson(res, 200, fixture('microsoft-identity/getuserrealm-srf-json1-federated-bbc.co.uk.json'))
    }
    if (req.path === '/common/GetCredentialType' && req.method === 'POST') {
      const domain = domainOf(JSON.parse(req.body.toString()).Username)
      const sample = fixture('microsoft-identity/getcredentialtype-managed-exists-with-tenant-branding.json')
      if (domain === 'credtype-malformed.example') return sendJson(res, 200, sample.slice(0, 200))
      // No recorded throttled answer exists: the sample with ThrottleStatus set.
      if (domain === 'credtype-throttled.example') return sendJson(res, 200, { ...JSON.parse(sample), ThrottleStatus: 1 })
      return sendJson(res, 200, sample)
    }
    if (req.path === `/${GRAPH_APP_TENANT}/oauth2/v2.0/token` && req.method === 'POST') {
      // Built by hand from the documented client-credentials answer (no recorded sample).
      return sendJson(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: TOKEN })
    }
    sendJson(res, 404, { error: 'not_found' })
  })

  graph = await startFakeUpstream((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`)
      return sendJson(res, 401, { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } })
    const m = /^\/v1\.0\/tenantRelationships\/findTenantInformationByTenantId\(tenantId='([^']+)'\)$/.exec(decodeURIComponent(req.path))
    if (m?.[1] === CONTOSO) return sendJson(res, 200, fixture('microsoft-graph/findTenantInformationByDomainName-docs-example-contoso.com.json'))
    if (m?.[1] === FABRIKAM) return sendJson(res, 500, { error: { code: 'UnknownError', message: '' } })
    sendJson(res, 404, fixture('microsoft-graph/findTenantInformationByDomainName-error-Directory_ObjectNotFound.json'))
  })

  const contoso = fixtureJson<Zone>('dns/tenant-contoso.json')
  doh = await startFakeDoh({ records: { ...contoso.records, ...fixtureJson<Zone>('dns/tenant-fabrikam.json').records }, secure: contoso.secure })

  const env = {
    MS_LOGIN_URL: login.url,
    MS_GRAPH_URL: graph.url,
    DOH_URL: doh.url,
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    UPSTREAM_RETRIES: '1',
  }
  ;[plain, withGraph] = await Promise.all([
    startApp(env),
    startApp({ ...env, MS_TENANT_ID: GRAPH_APP_TENANT, MS_CLIENT_ID: 'client-id-1', MS_CLIENT_SECRET: 'client-secret-1' }),
  ])
})

afterAll(async () => {
  await Promise.all([plain?.stop(), withGraph?.stop()])
  await Promise.all([login?.close(), graph?.close(), doh?.close()])
})

const contracts = new Map<RunningApp, ReturnType<typeof loadContract>>()

// Every response is checked against the OpenAPI document the app serves.
async function lookup(app: RunningApp, query: string) {
  const res = await fetch(`${app.url}/api/directory/tenantinfo?${query}`)
  const body = await res.json()
  if (!contracts.has(app)) contracts.set(app, loadContract(app.url))
  ;(await contracts.get(app)!).expectValid('GET', '/api/directory/tenantinfo', res.status, body)
  return { status: res.status, body, headers: res.headers }
}

const requestsTo = (server: FakeUpstream, path: string) => server.requests.filter((r) => r.path === path)

describe('tenantinfo without Graph credentials', () => {
  it('skips MX and TLSA lookups with skipEmailConfig and answers empty arrays', async () => {
    const { status, body } = await lookup(plain, 'domainName=fabrikam.com&skipEmailConfig=true')
    expect(status).toBe(200)
    expect(body).toMatchObject({ tenantId: FABRIKAM, mxRecords: [], emailConfiguration: [], tenantUsesExo: false })
    expect(body.discovery.sources.email).toBe('skipped')
    expect(queriedNames(doh).filter((q) => q.startsWith('MX ') || q.startsWith('TLSA '))).toEqual([])
  })

  it('looks a tenant up by domain, from every public source', async () => {
    const { status, body, headers } = await lookup(plain, 'domainName=contoso.com')
    expect(status).toBe(200)
    expect(headers.get('cache-control')).toBe('public, max-age=300')
    expect(body).toEqual({
      tenantId: CONTOSO,
      federationBrandName: 'BBC',
      tenantDisplayName: null,
      defaultDomainName: 'contoso18839.onmicrosoft.com',
      bannerLogo:
        'https://aadcdn.msftauthimages.net/dbd5a2dd-oibn8aahvqzuk9axjezt8gipakuxvaklx7dra8ibacg/logintenantbranding/0/bannerlogo?ts=638100893668399336',
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
    // Graph is not configured: never called, not even for a token.
    expect(graph.requests).toEqual([])
    expect(requestsTo(login, `/${GRAPH_APP_TENANT}/oauth2/v2.0/token`)).toEqual([])
  })

  it('asks the credential-type endpoint once per domain and serves repeats from the cache', async () => {
    const before = requestsTo(login, '/common/GetCredentialType').length
    await lookup(plain, 'domainName=contoso.com&customDomainsOnly=true')
    await lookup(plain, 'domainName=CONTOSO.com.')
    expect(requestsTo(login, '/common/GetCredentialType').length).toBe(before)
    const asked = requestsTo(login, '/common/GetCredentialType').map((r) => JSON.parse(r.body.toString()).Username)
    expect(asked.filter((u: string) => u.endsWith('@contoso.com'))).toHaveLength(1)
  })

  it('analyses only custom domains with customDomainsOnly', async () => {
    const { body } = await lookup(plain, 'domainName=contoso.com&customDomainsOnly=true')
    expect(body.emailConfiguration.map((e: { domain: string }) => e.domain)).toEqual(['contoso.com'])
    expect(body.mxRecords).toEqual(['contoso-com.p-v1.mx.microsoft', 'contoso-com.mail.protection.outlook.com'])
  })

  it('does not take a DKIM target naming another tenant as this tenant’s domain', async () => {
    const { status, body } = await lookup(plain, 'domainName=fabrikam.com')
    expect(status).toBe(200)
    expect(body).toMatchObject({
      tenantId: FABRIKAM,
      defaultDomainName: 'fabrikam.com',
      verifiedDomains: 1,
      additionalDomains: [],
      spoDomains: [],
      tenantUsesSpo: false,
      emailConfiguration: [{ domain: 'fabrikam.com', mxRecords: ['fabrikam-com.r-v1.mx.microsoft'], exoSmtpDaneDnsSecEnabled: false }],
    })
    expect(body.discovery).toMatchObject({ initialDomain: null, defaultDomainNameSource: 'queried_domain' })
  })

  it('knows only the OpenID facts for a tenant id (and accepts the legacy tenantID casing)', async () => {
    for (const query of [`tenantId=${CONTOSO}`, `tenantID=${CONTOSO.toUpperCase()}`]) {
      const { status, body } = await lookup(plain, query)
      expect(status).toBe(200)
      expect(body).toMatchObject({ tenantId: CONTOSO, tenantRegion: 'WW', defaultDomainName: '', tenantDisplayName: null, verifiedDomains: 0, mxRecords: [] })
      expect(body.discovery.sources).toEqual({ graph: 'not_configured', signIn: 'no_domain', email: 'no_domain' })
    }
  })

  it.each([
    ['neither parameter', ''],
    ['both parameters', `tenantId=${CONTOSO}&domainName=contoso.com`],
    ['tenantId and tenantID', `tenantId=${CONTOSO}&tenantID=${CONTOSO}`],
    ['a malformed tenant id', 'tenantId=not-a-guid'],
    ['a malformed domain', 'domainName=contoso..com'],
    ['an unknown parameter', 'domainName=contoso.com&tenantid=x'],
    ['a non-boolean flag', 'domainName=contoso.com&skipEmailConfig=sometimes'],
  ])('answers 400 {success:false, error} for %s', async (_label, query) => {
    const { status, body } = await lookup(plain, query)
    expect(status).toBe(400)
    expect(body).toMatchObject({ success: false, error: expect.any(String) })
  })

  it('names the exactly-one rule in the 400 message', async () => {
    const { body } = await lookup(plain, '')
    expect(body.error).toMatch(/exactly one of tenantId or domainName/)
  })

  it('answers 404 {success:false, error} for a tenant Microsoft does not know', async () => {
    const domain = `unknown-${randomUUID().slice(0, 8)}.example`
    const { status, body } = await lookup(plain, `domainName=${domain}`)
    expect(status).toBe(404)
    expect(body).toEqual({ success: false, error: `No Microsoft Entra tenant found for '${domain}'.`, requestId: expect.any(String) })
  })

  it.each([
    ['OpenID discovery answers 500', 'openid-500.example', 502],
    ['OpenID discovery never answers', 'openid-hang.example', 504],
    ['OpenID discovery answers something that is not JSON', 'openid-malformed.example', 502],
    ['the user realm answers 500', 'realm-500.example', 502],
    ['the credential type is cut short', 'credtype-malformed.example', 502],
  ])('answers the documented error when %s', async (_label, domain, expected) => {
    const started = Date.now()
    const { status, body } = await lookup(plain, `domainName=${domain}`)
    expect(status).toBe(expected)
    expect(body).toMatchObject({ success: false, error: expect.stringMatching(/Microsoft login/) })
    // A correctness bound, not a benchmark: one deadline covers the retries of each call.
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4)
  })

  it('answers an error with Retry-After when Microsoft throttles the credential-type lookup', async () => {
    const { status, body, headers } = await lookup(plain, 'domainName=credtype-throttled.example')
    expect(status).toBe(502)
    expect(body.error).toMatch(/throttling/)
    expect(headers.get('retry-after')).toBe('120')
  })

  it('stays up after the faults', async () => {
    expect((await fetch(`${plain.url}/api/health`)).status).toBe(200)
    expect((await lookup(plain, 'domainName=contoso.com')).status).toBe(200)
  })
})

describe('tenantinfo with Graph credentials', () => {
  it('gets the display name and default domain from Graph for a tenant id, then reads that domain', async () => {
    const { status, body } = await lookup(withGraph, `tenantId=${CONTOSO}`)
    expect(status).toBe(200)
    expect(body).toMatchObject({
      tenantId: CONTOSO,
      tenantDisplayName: 'Contoso, Ltd',
      defaultDomainName: 'contoso18839.onmicrosoft.com',
      federationBrandName: 'BBC',
      tenantUsesSpo: true,
      tenantUsesExo: true,
      verifiedDomains: 1,
      additionalDomains: [],
      emailConfiguration: [
        { domain: 'contoso18839.onmicrosoft.com', mxRecords: ['contoso18839.mail.protection.outlook.com'], exoSmtpDaneDnsSecEnabled: false },
      ],
    })
    expect(body.discovery).toMatchObject({
      queriedDomain: 'contoso18839.onmicrosoft.com',
      defaultDomainNameSource: 'graph',
      sources: { graph: 'used', signIn: 'used', email: 'used' },
    })

    const [token] = requestsTo(login, `/${GRAPH_APP_TENANT}/oauth2/v2.0/token`)
    const form = new URLSearchParams(token.body.toString())
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'client_credentials',
      client_id: 'client-id-1',
      client_secret: 'client-secret-1',
      scope: `${graph.url}/.default`,
    })
  })

  it('adds Graph’s facts to a domain lookup and reuses its token', async () => {
    const { body } = await lookup(withGraph, 'domainName=contoso.com')
    expect(body).toMatchObject({
      tenantDisplayName: 'Contoso, Ltd',
      defaultDomainName: 'contoso18839.onmicrosoft.com',
      verifiedDomains: 2,
      additionalDomains: ['contoso18839.onmicrosoft.com'],
    })
    expect(body.discovery.defaultDomainNameSource).toBe('graph')
    expect(requestsTo(login, `/${GRAPH_APP_TENANT}/oauth2/v2.0/token`)).toHaveLength(1)
  })

  it('says so when Graph does not know the tenant, and when Graph fails', async () => {
    const unknown = await lookup(withGraph, `tenantId=${UNKNOWN_TO_GRAPH}`)
    expect(unknown.status).toBe(200)
    expect(unknown.body).toMatchObject({ tenantDisplayName: null, defaultDomainName: '' })
    expect(unknown.body.discovery.sources.graph).toBe('not_found')

    const failing = await lookup(withGraph, 'domainName=fabrikam.com')
    expect(failing.status).toBe(200)
    expect(failing.body).toMatchObject({ tenantId: FABRIKAM, tenantDisplayName: null, defaultDomainName: 'fabrikam.com' })
    expect(failing.body.discovery.sources.graph).toBe('failed')
  })
})

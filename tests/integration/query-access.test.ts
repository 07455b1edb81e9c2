import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestKey, signToken, startJwksServer, unsecuredToken, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, TEST_OPERATOR_KEY, type RunningApp } from '../../test-support/app'
import { rawRequest } from '../../test-support/raw-request'

// The access policy in the built server, with a key set served on loopback as the identity-aware
// proxy publishes it: every page and route under /query, health included; the ingest endpoint keeps
// its own secret; QUERY_APP_HOST serves the app at / and /api/…; the local operator of `npm start`
// and every case where it is refused.

const QUERY_HOST = 'query.example.test'
let key: TestKey
let stranger: TestKey
let jwks: JwksServer
let app: RunningApp

const now = () => Math.floor(Date.now() / 1000)
const get = (path: string, headers: Record<string, string> = {}, on = app) => fetch(`${on.url}${path}`, { headers, redirect: 'manual' })
const bearer = async (claims = {}) => ({ 'cf-access-jwt-assertion': await signToken(key, claims) })

function expectNoCors(res: Response) {
  expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([])
}

beforeAll(async () => {
  ;[key, stranger] = await Promise.all([createTestKey('rsa-1'), createTestKey('rsa-unpublished')])
  jwks = await startJwksServer([key])
  app = await startApp({
    ACCESS_JWKS_URL: jwks.url,
    ACCESS_AUDIENCE: 'old-aud-tag,test-aud-tag',
    ACCESS_ISSUER: 'https://team.example.test',
    ACCESS_ALLOWED_EMAILS: 'ana@example.com,@corp.example',
    QUERY_APP_HOST: QUERY_HOST,
    LOG_LEVEL: 'info',
  })
}, 90_000)

afterAll(async () => {
  await app?.stop()
  await jwks?.close()
})

describe('tokens', () => {
  it.each([
    ['no token', async () => ({}), 401, 'unauthorized', 'Access token missing.'],
    ['an expired token', () => bearer({ exp: now() - 600 }), 403, 'forbidden', 'Access token expired.'],
    ['a wrong audience', () => bearer({ aud: 'another-app' }), 403, 'forbidden', 'Access token invalid.'],
    ['a wrong issuer', () => bearer({ iss: 'https://evil.example.test' }), 403, 'forbidden', 'Access token invalid.'],
    [
      'alg none',
      async () => ({ 'cf-access-jwt-assertion': unsecuredToken({ aud: 'test-aud-tag', iss: 'https://team.example.test' }) }),
      403,
      'forbidden',
      'Access token invalid.',
    ],
    ['an unknown kid', async () => ({ 'cf-access-jwt-assertion': await signToken(stranger) }), 403, 'forbidden', 'Access token invalid.'],
    ['an email not allowed', () => bearer({ email: 'eve@example.com' }), 403, 'forbidden', 'Not allowed.'],
  ])('GET /query/api/me with %s → %i', async (_name, headers, status, code, message) => {
    const res = await get('/query/api/me', await headers())
    expect(res.status).toBe(status)
    const body = await res.json()
    expect(body).toEqual({ error: { code, message, requestId: res.headers.get('x-request-id') } })
    expectNoCors(res)
  })

  it('returns the identity of a valid token, from the header or the cookie', async () => {
    const token = await signToken(key, { name: 'Ana', groups: ['ops'] })
    for (const headers of [{ 'cf-access-jwt-assertion': token }, { cookie: `other=1; CF_Authorization=${token}` }] as Record<string, string>[]) {
      const res = await get('/query/api/me', headers)
      expect(res.status).toBe(200)
      expect(await res.json()).toEqual({
        kind: 'access',
        email: 'ana@example.com',
        subject: 'user-ana',
        issuer: 'https://team.example.test',
        expiresAt: expect.any(String),
        name: 'Ana',
        groups: ['ops'],
      })
    }
  })

  it('lets in an address of an allowed domain, under the second AUD tag', async () => {
    const res = await get('/query/api/me', await bearer({ email: 'cy@corp.example', aud: 'old-aud-tag' }))
    expect(res.status).toBe(200)
  })

  it('logs why a token was refused, and tells the client no more than a short reason', async () => {
    const res = await get('/query/api/datasets', await bearer({ aud: 'another-app' }))
    const requestId = res.headers.get('x-request-id')!
    expect((await res.json()).error.message).toBe('Access token invalid.')
    await expect.poll(() => app.logs()).toContain(requestId)
    const line = JSON.parse(
      app
        .logs()
        .split('\n')
        .find((l) => l.includes(requestId) && l.includes('query access refused'))!,
    )
    expect(line).toMatchObject({ level: 'warn', path: '/query/api/datasets', status: 403, why: expect.stringMatching(/claim aud/) })
  })
})

describe('every page and route is behind the policy', () => {
  it.each(['/query', '/query/dashboard', '/query/export', '/query/api/health', '/query/api/datasets', '/query/no-such-page'])(
    'GET %s without a token → 401',
    async (path) => {
      const res = await get(path)
      expect(res.status).toBe(401)
      expectNoCors(res)
    },
  )

  it('serves the pages with the identity in the header', async () => {
    const res = await get('/query', await bearer())
    expect(res.status).toBe(200)
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    const html = await res.text()
    expect(html).toContain('ana@example.com')
    expect(html).toContain('No rows match this range and filter.')
  })

  it.each([
    ['an expired token', () => bearer({ exp: now() - 600 }), 403, 'Access refused', 'Access token expired.', 'Your sign-in has expired'],
    ['no token', async () => ({}), 401, 'Sign-in needed', 'Access token missing.', 'so that the sign-in page can run'],
    [
      'an address not allowed',
      () => bearer({ email: 'eve@example.com' }),
      403,
      'Access refused',
      'Not allowed.',
      'ask the people who run this application (support@example.com)',
    ],
  ])('refuses a page with %s by an explanation in the application’s style', async (_name, headers, status, title, what, next) => {
    const res = await get('/query/dashboard', await headers())
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toMatch(/text\/html/)
    const html = await res.text()
    expect(html).toMatch(/^<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">/)
    expect(html).toContain(`<title>${title} · Query application</title>`)
    expect(html).toContain(`<h1>${title}</h1>`)
    expect(html).toContain(what)
    expect(html).toContain('<h2>What to do next</h2>')
    expect(html).toContain(next)
    expect(html).toContain(`Request id: <code>${res.headers.get('x-request-id')}</code>`)
    expect(html).toContain('prefers-color-scheme:dark')
  })

  it('answers health behind the policy', async () => {
    const res = await get('/query/api/health', await bearer())
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ok', database: { status: 'ok' } })
  })

  it('leaves the ingest endpoint to its own secret', async () => {
    const res = await fetch(`${app.url}/query/ingest/dns`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(503)
    expect((await res.json()).error.message).toMatch(/LOGPUSH_SECRET/)
  })
})

describe('same origin', () => {
  const body = JSON.stringify({ dataset: 'requests', dateFrom: '2026-01-10', dateTo: '2026-01-10' })
  const post = async (headers: Record<string, string>) =>
    fetch(`${app.url}/query/api/query`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...(await bearer()), ...headers } })

  it.each([
    ['no Origin', {}],
    ['another origin', { origin: 'https://evil.example' }],
    ['a cross-site fetch', { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
  ])('refuses a POST with %s (403)', async (_name, headers) => {
    const res = await post(headers)
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('Cross-origin requests are not accepted.')
    expectNoCors(res)
  })

  it('accepts a POST from its own origin', async () => {
    const res = await post({ origin: app.url })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ rows: [], count: 0 })
  })

  it('answers a preflight without any CORS permission', async () => {
    const res = await fetch(`${app.url}/query/api/query`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    })
    expectNoCors(res)
  })
})

describe('QUERY_APP_HOST', () => {
  const onHost = async (path: string, headers: Record<string, string> = {}) => rawRequest(`${app.url}${path}`, { headers: { host: QUERY_HOST, ...headers } })

  it('serves the API at /api/… and the pages at / on that host', async () => {
    const auth = await bearer()
    const me = await onHost('/api/me', auth)
    expect(me.status).toBe(200)
    expect(JSON.parse(me.text)).toMatchObject({ kind: 'access', email: 'ana@example.com' })
    const page = await onHost('/', auth)
    expect(page.status).toBe(200)
    // Links on that host carry no /query prefix.
    expect(page.text.match(/href="[^"]*dashboard[^"]*"/)?.[0]).toBe('href="/dashboard?dataset=requests&amp;range=24h"')
    expect((await onHost('/dashboard', auth)).status).toBe(200)
  })

  it('keeps that host behind the policy and off the public API', async () => {
    expect((await onHost('/api/health')).status).toBe(401)
    expect((await onHost('/')).status).toBe(401)
    expect((await onHost('/api/generate/guid', await bearer())).status).toBe(404)
  })

  it('leaves the public API on other hosts alone', async () => {
    const res = await get('/api/health')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: expect.any(String), checks: expect.any(Object) })
    expect((await get('/api/me')).status).toBe(404)
  })
})

describe('without access settings: the local operator', () => {
  // `npm start` on the embedded defaults (NODE_ENV=production, no settings, 127.0.0.1).
  let local: RunningApp
  const KEY = TEST_OPERATOR_KEY
  beforeAll(async () => {
    local = await startApp({ NODE_ENV: 'production' })
  }, 90_000)
  afterAll(() => local?.stop())
  const me = (headers: Record<string, string> = {}) => get('/query/api/me', { cookie: local.operatorCookie, ...headers }, local)

  it('prints the surfaces, the key link and the embedded defaults at start', () => {
    const logs = local.logs()
    for (const surface of ['landing', 'docs', 'OpenAPI', 'MCP']) expect(logs).toMatch(new RegExp(`  ${surface} +http://127\\.0\\.0\\.1:${local.port}/`))
    expect(logs).toContain(`query     http://127.0.0.1:${local.port}/query?key=${KEY}`)
    expect(logs).toContain('PGlite at memory://')
    expect(logs).toMatch(/rate limits +in memory/)
    expect(logs).toMatch(/secrets +none set/)
    expect(logs).toContain('HOST=0.0.0.0 npm start (the local operator is then off')
  })

  it('grants a direct loopback request that presents the key', async () => {
    const res = await me()
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ kind: 'local', label: 'Local operator', address: '127.0.0.1' })
    expect(await (await get('/query', { cookie: local.operatorCookie }, local)).text()).toContain('Local operator')
  })

  it('moves the key of the printed link into an HttpOnly, SameSite=Strict cookie and drops it from the address', async () => {
    const res = await get(`/query/dashboard?dataset=dns&key=${KEY}`, {}, local)
    expect(res.status).toBe(303)
    // Next writes a same-origin redirect as a path: the browser stays on the host it used.
    expect(res.headers.get('location')).toBe('/query/dashboard?dataset=dns')
    expect(res.headers.get('set-cookie')).toBe(`local_operator_key_${local.port}=${KEY}; Path=/; HttpOnly; SameSite=Strict`)
    const cookie = res.headers.get('set-cookie')!.split(';')[0]
    expect((await get('/query/dashboard?dataset=dns', { cookie }, local)).status).toBe(200)
  })

  it('answers the key link on a loopback name at its own port only: no cookie, no redirect for any other Host', async () => {
    for (const host of [`localhost:${local.port}`, `127.0.0.1:${local.port}`]) {
      const res = await rawRequest(`${local.url}/query?dataset=dns&key=${KEY}`, { headers: { host } })
      expect([host, res.status, res.headers.location]).toEqual([host, 303, '/query?dataset=dns'])
      expect(res.headers['set-cookie']).toEqual([`local_operator_key_${local.port}=${KEY}; Path=/; HttpOnly; SameSite=Strict`])
    }
    for (const host of ['evil.example', `evil.example:${local.port}`, `127.0.0.1:${local.port + 1}`, 'localhost']) {
      const res = await rawRequest(`${local.url}/query?dataset=dns&key=${KEY}`, { headers: { host } })
      expect([host, res.status, res.headers.location, res.headers['set-cookie']]).toEqual([host, 401, undefined, undefined])
    }
  })

  it.each([
    ['no key', (): Record<string, string> => ({})],
    ['a wrong key', () => ({ cookie: `local_operator_key_${local.port}=itest-local-operator-kez` })],
    // The right key under another port's name (a cookie a browser holds for that port) or under none.
    ['the key of another port', () => ({ cookie: `local_operator_key_${local.port + 1}=${KEY}; local_operator_key=${KEY}` })],
  ])('refuses %s with 401 and says to open the printed link', async (_name, headersOf) => {
    const headers = headersOf()
    const api = await get('/query/api/me', headers, local)
    expect(api.status).toBe(401)
    expect((await api.json()).error.message).toBe('The local operator key is missing or wrong.')
    const page = await get('/query', headers, local)
    expect(page.status).toBe(401)
    const html = await page.text()
    expect(html).toContain('<h1>Open the link from the start-up lines</h1>')
    expect(html).toContain(`Open the “query” link printed by npm start (http://127.0.0.1:${local.port}/query?key=…)`)
  })

  it('sets no cookie for a wrong key in the link', async () => {
    const res = await get('/query?key=itest-local-operator-kez', {}, local)
    expect(res.status).toBe(401)
    expect(res.headers.get('set-cookie')).toBeNull()
  })

  it.each([
    ['X-Forwarded-For naming someone else', { 'x-forwarded-for': '203.0.113.9' }],
    // A proxy on the same host relaying for a loopback client: still relayed.
    ['X-Forwarded-For naming the loopback peer', { 'x-forwarded-for': '127.0.0.1' }],
    ['X-Forwarded-Proto', { 'x-forwarded-proto': 'https' }],
    ['X-Forwarded-Host', { 'x-forwarded-host': 'query.example.org' }],
    ['X-Real-IP', { 'x-real-ip': '203.0.113.9' }],
    ['Forwarded', { forwarded: 'for=203.0.113.9;proto=https' }],
    ['Via', { via: '1.1 nginx' }],
    // A client cannot claim the connection address or an unrelayed request: server.mjs overwrites both.
    ['forged stamps', { 'x-tc-connection-ip': '127.0.0.1', 'x-tc-relayed': '0', 'x-forwarded-for': '203.0.113.9' }],
  ])('refuses a proxied request from loopback (%s), key or not, with 403', async (_name, headers) => {
    const res = await me(headers)
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toBe('Without access settings only direct loopback requests are accepted.')
    const link = await get(`/query?key=${KEY}`, headers, local)
    expect(link.status).toBe(403)
    expect(link.headers.get('set-cookie')).toBeNull()
    expect(await link.text()).toContain('not through a proxy or another address')
  })
})

describe('without access settings: deployments never get the local operator', () => {
  it('refuses everything on a public listener (HOST=0.0.0.0), even a loopback peer with the key', async () => {
    const pub = await startApp({ NODE_ENV: 'production', HOST: '0.0.0.0' })
    try {
      expect(pub.logs()).not.toContain(TEST_OPERATOR_KEY)
      expect(pub.logs()).toContain('local operator off')
      for (const path of ['/query', '/query/api/me', '/query/api/health', `/query?key=${TEST_OPERATOR_KEY}`]) {
        const res = await get(path, { cookie: pub.operatorCookie }, pub)
        expect(res.status, path).toBe(503)
        expect(res.headers.get('set-cookie')).toBeNull()
        const body = await res.text()
        expect(body).toContain('listens on a public address (0.0.0.0)')
        if (path === '/query') expect(body).toContain('start the server on a loopback address (HOST=127.0.0.1')
      }
    } finally {
      await pub.stop()
    }
  })

  it.each([
    ['TRUSTED_IP_HEADER', { TRUSTED_IP_HEADER: 'x-forwarded-for' }],
    // An unreachable server: the rule depends on the setting, not on the database answering.
    ['DATABASE_URL', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }],
  ])('refuses everything with 503 when %s is set, naming the access settings', async (name, env) => {
    const deployed = await startApp({ NODE_ENV: 'production', ...env })
    try {
      expect(deployed.logs()).not.toContain(TEST_OPERATOR_KEY)
      for (const path of ['/query', '/query/api/me', `/query?key=${TEST_OPERATOR_KEY}`]) {
        const res = await get(path, { cookie: deployed.operatorCookie }, deployed)
        expect(res.status, path).toBe(503)
        expect(res.headers.get('set-cookie')).toBeNull()
        const body = await res.text()
        expect(body).toContain('ACCESS_JWKS_URL')
        expect(body).toContain(`With ${name} set, the local operator is off.`)
        if (path === '/query') expect(body).toContain('<h1>Not set up yet</h1>')
      }
    } finally {
      await deployed.stop()
    }
  })
})

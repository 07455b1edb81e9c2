import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isListeningAuthority, localKeyCookie, localKeyCookieName } from '@/lib/access/local-operator'
import { accessMode, admitRequest, checkAccess, crossOriginProblem, loopbackPeer } from '@/lib/access/policy'
import { internalQueryPath, isQueryAppHost, queryBasePath } from '@/lib/access/query-host'
import { loadConfig } from '@/lib/config'
import { CONNECTION_IP_HEADER } from '@/lib/http/headers'

// The policy's decisions that need no key server: which mode a configuration selects, who counts
// as a local operator, and the same-origin rule. Token verification: access-verify.test.ts.

const STAMPED = Symbol.for('utility-api.connection-ip-stamped')
const LOCAL = Symbol.for('utility-api.local-operator')
const KEY = 'unit-local-operator-key'
const g = globalThis as Record<symbol, unknown>
const noCookies = { get: () => undefined }
const withKey = (value = KEY) => ({ get: (name: string) => (name === 'local_operator_key' ? { value } : undefined) })
const req = (headers: Record<string, string>, method = 'GET', cookies: { get(name: string): { value: string } | undefined } = withKey()) => ({
  method,
  headers: new Headers(headers),
  cookies,
})
const FULL = { ACCESS_JWKS_URL: 'https://team.example.test/cdn-cgi/access/certs', ACCESS_AUDIENCE: 'aud-1,aud-2', ACCESS_ISSUER: 'https://team.example.test' }

beforeEach(() => {
  // as server.mjs does
  g[STAMPED] = true
  g[LOCAL] = { key: KEY, listening: '127.0.0.1' }
})
afterEach(() => {
  delete g[STAMPED]
  delete g[LOCAL]
})

describe('accessMode', () => {
  it('verifies tokens when the three settings are there, with every AUD tag listed', () => {
    expect(accessMode(loadConfig({ ...FULL, NODE_ENV: 'production', ACCESS_ALLOWED_EMAILS: '@example.com' }))).toEqual({
      kind: 'verify',
      settings: { jwksUrl: FULL.ACCESS_JWKS_URL, audience: ['aud-1', 'aud-2'], issuer: FULL.ACCESS_ISSUER, allowedEmails: ['@example.com'] },
    })
  })

  it.each([
    [{ NODE_ENV: 'development' }, 'local'],
    [{ NODE_ENV: 'test' }, 'local'],
    // `npm start` on the embedded defaults: the local operator, whatever NODE_ENV.
    [{ NODE_ENV: 'production' }, 'local'],
    // A deployment's settings turn it off.
    [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://app@db.example.test/app' }, 'unconfigured'],
    [{ NODE_ENV: 'development', TRUSTED_IP_HEADER: 'x-forwarded-for' }, 'unconfigured'],
    // Half a configuration is a mistake, never a reason to fall back to local mode.
    [{ NODE_ENV: 'development', ACCESS_JWKS_URL: FULL.ACCESS_JWKS_URL }, 'unconfigured'],
    [{ NODE_ENV: 'development', ACCESS_ALLOWED_EMAILS: 'ana@example.com' }, 'unconfigured'],
    [{ NODE_ENV: 'production', ACCESS_AUDIENCE: 'aud', ACCESS_ISSUER: 'x' }, 'unconfigured'],
  ])('%j → %s', (env, kind) => {
    expect(accessMode(loadConfig(env)).kind).toBe(kind)
  })

  it('says why a deployment has no local operator', () => {
    const mode = accessMode(loadConfig({ DATABASE_URL: 'postgres://app@db.example.test/app', TRUSTED_IP_HEADER: 'cf-connecting-ip' }))
    expect(mode).toMatchObject({
      kind: 'unconfigured',
      message: expect.stringMatching(/With DATABASE_URL and TRUSTED_IP_HEADER set, the local operator is off/),
    })
  })

  it('names what is missing', () => {
    const mode = accessMode(loadConfig({ ACCESS_JWKS_URL: FULL.ACCESS_JWKS_URL }))
    expect(mode).toEqual({ kind: 'unconfigured', message: 'The access policy is incomplete: set ACCESS_AUDIENCE, ACCESS_ISSUER.' })
  })

  it('rejects a malformed allow-list at start-up', () => {
    expect(() => loadConfig({ ACCESS_ALLOWED_EMAILS: 'ana@example.com,example.com' })).toThrow(/ACCESS_ALLOWED_EMAILS/)
  })
})

describe('local operator', () => {
  it.each([
    [{ [CONNECTION_IP_HEADER]: '127.0.0.1' }, '127.0.0.1'],
    [{ [CONNECTION_IP_HEADER]: '::1' }, '::1'],
    [{ [CONNECTION_IP_HEADER]: '::ffff:127.0.0.1', 'x-forwarded-for': '::ffff:127.0.0.1' }, '127.0.0.1'],
    [{ [CONNECTION_IP_HEADER]: '192.0.2.10' }, null],
    [{ [CONNECTION_IP_HEADER]: '10.0.0.1', 'x-forwarded-for': '127.0.0.1' }, null],
    // Loopback, but relayed for someone else: a reverse proxy on the same host.
    [{ [CONNECTION_IP_HEADER]: '127.0.0.1', 'x-forwarded-for': '203.0.113.9' }, null],
    [{ [CONNECTION_IP_HEADER]: '127.0.0.1', 'x-real-ip': '203.0.113.9' }, null],
    [{ [CONNECTION_IP_HEADER]: '127.0.0.1', forwarded: 'for=203.0.113.9' }, null],
    [{ [CONNECTION_IP_HEADER]: 'not an address' }, null],
    [{}, null],
  ])('%j → %s', (headers, expected) => {
    expect(loopbackPeer(new Headers(headers))).toBe(expected)
  })

  it('never believes the connection header when server.mjs did not stamp it', async () => {
    delete g[STAMPED]
    const result = await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }), { kind: 'local' })
    expect(result).toMatchObject({ ok: false, code: 'forbidden', why: expect.stringMatching(/npm start/) })
    g[STAMPED] = true
    delete g[LOCAL]
    expect(await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }), { kind: 'local' })).toMatchObject({
      ok: false,
      code: 'forbidden',
      why: expect.stringMatching(/npm start/),
    })
  })

  it.each(['0.0.0.0', '::', '192.0.2.1', undefined])(
    'refuses with 503 while the server listens on %s, even a loopback peer with the key',
    async (listening) => {
      g[LOCAL] = { key: KEY, listening }
      const result = await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }), { kind: 'local' })
      expect(result).toMatchObject({ ok: false, code: 'not_configured', reason: expect.stringMatching(/listens on a public address/) })
    },
  )

  it.each(['127.0.0.1', '::1', '127.0.0.2'])('accepts a loopback listener (%s)', async (listening) => {
    g[LOCAL] = { key: KEY, listening }
    expect(await checkAccess(req({ [CONNECTION_IP_HEADER]: '::1' }), { kind: 'local' })).toMatchObject({ ok: true })
  })

  it('refuses a request server.mjs saw relayed, whatever else it carries', async () => {
    const result = await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1', 'x-tc-relayed': '1' }), { kind: 'local' })
    expect(result).toMatchObject({ ok: false, code: 'forbidden' })
  })

  it.each([
    ['no key', noCookies, /no key cookie/],
    ['a wrong key', withKey('unit-local-operator-kex'), /wrong key/],
    ['a key of another length', withKey('short'), /wrong key/],
  ])('refuses %s with 401, pointing at the start-up link', async (_name, cookies, why) => {
    const result = await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }, 'GET', cookies), { kind: 'local' })
    expect(result).toMatchObject({ ok: false, code: 'unauthorized', reason: 'The local operator key is missing or wrong.', why: expect.stringMatching(why) })
  })

  it('labels a loopback request as the local operator and refuses others with 403', async () => {
    expect(await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }), { kind: 'local' })).toEqual({
      ok: true,
      identity: { kind: 'local', label: 'Local operator', address: '127.0.0.1' },
    })
    expect(await checkAccess(req({ [CONNECTION_IP_HEADER]: '192.0.2.10' }), { kind: 'local' })).toMatchObject({ ok: false, code: 'forbidden' })
  })

  it('answers 503 with the reason when unconfigured, whoever asks', async () => {
    const result = await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }), { kind: 'unconfigured', message: 'set ACCESS_JWKS_URL' })
    expect(result).toMatchObject({ ok: false, code: 'not_configured', reason: 'set ACCESS_JWKS_URL' })
  })

  it('asks for a token (401) before anything else in verify mode', async () => {
    const mode = accessMode(loadConfig(FULL))
    expect(await checkAccess(req({ [CONNECTION_IP_HEADER]: '127.0.0.1' }), mode)).toMatchObject({
      ok: false,
      code: 'unauthorized',
      reason: 'Access token missing.',
    })
  })
})

describe('same origin', () => {
  it.each([
    ['GET', {}, null],
    ['POST', { 'sec-fetch-site': 'same-origin' }, null],
    ['POST', { origin: 'http://q.example.test', host: 'q.example.test' }, null],
    ['POST', { origin: 'https://q.example.test:8443', host: 'q.example.test:8443' }, null],
    ['POST', { 'sec-fetch-site': 'none', origin: 'http://q.example.test', host: 'q.example.test' }, null],
    ['POST', {}, 'no Origin or Sec-Fetch-Site header'],
    ['POST', { 'sec-fetch-site': 'cross-site', origin: 'http://q.example.test', host: 'q.example.test' }, 'sec-fetch-site is cross-site'],
    ['POST', { 'sec-fetch-site': 'same-site' }, 'sec-fetch-site is same-site'],
    ['POST', { origin: 'https://evil.example', host: 'q.example.test' }, 'origin https://evil.example is not q.example.test'],
    ['POST', { origin: 'null', host: 'q.example.test' }, 'malformed Origin null'],
  ])('%s %j → %s', (method, headers, problem) => {
    expect(crossOriginProblem(method, new Headers(headers as Record<string, string>))).toBe(problem)
  })

  it('refuses a cross-origin POST before looking at identity', async () => {
    const result = await admitRequest(req({ [CONNECTION_IP_HEADER]: '127.0.0.1', origin: 'https://evil.example', host: '127.0.0.1:3000' }, 'POST'), {
      kind: 'local',
    })
    expect(result).toMatchObject({ ok: false, code: 'forbidden', reason: 'Cross-origin requests are not accepted.' })
  })
})

describe('QUERY_APP_HOST', () => {
  it.each([
    ['query.example.test', 'query.example.test', true],
    ['QUERY.example.test:8443', 'query.example.test', true],
    ['query.example.test:8443', 'query.example.test:3000', false],
    ['api.example.test', 'query.example.test', false],
    ['query.example.test', undefined, false],
  ])('host %s with setting %s → %s', (host, setting, expected) => {
    expect(isQueryAppHost(host, setting)).toBe(expected)
  })

  it('maps the literal paths into /query', () => {
    expect(['/', '/api/me', '/dashboard', '/query/api/me'].map(internalQueryPath)).toEqual(['/query', '/query/api/me', '/query/dashboard', '/query/api/me'])
    expect([queryBasePath('/'), queryBasePath('/query'), queryBasePath(null)]).toEqual(['', '/query', '/query'])
  })
})

describe('the local operator key, bound to the listening port', () => {
  it('is presented in a cookie named for the port, and one named for another port is not it', async () => {
    g[LOCAL] = { key: KEY, listening: '127.0.0.1', port: 4100 }
    const cookies = (jar: Record<string, string>) => ({ get: (name: string) => (name in jar ? { value: jar[name] } : undefined) })
    const peer = { [CONNECTION_IP_HEADER]: '127.0.0.1' }
    expect(localKeyCookieName({ port: 4100 })).toBe('local_operator_key_4100')
    expect(localKeyCookie({ key: KEY, port: 4100 })).toBe(`local_operator_key_4100=${KEY}; Path=/; HttpOnly; SameSite=Strict`)
    expect(await checkAccess(req(peer, 'GET', cookies({ local_operator_key_4100: KEY })))).toMatchObject({ ok: true })
    expect(await checkAccess(req(peer, 'GET', cookies({ local_operator_key_4101: KEY, local_operator_key: KEY })))).toMatchObject({
      ok: false,
      code: 'unauthorized',
    })
  })

  it.each([
    ['127.0.0.1:4100', true],
    ['localhost:4100', true],
    ['LOCALHOST:4100', true],
    ['[::1]:4100', true],
    ['127.0.0.2:4100', true],
    ['127.0.0.1:4101', false],
    ['127.0.0.1', false],
    ['localhost', false],
    ['evil.example:4100', false],
    ['localhost.evil.example:4100', false],
    ['10.0.0.1:4100', false],
    ['user@127.0.0.1:4100', false],
    ['127.0.0.1:4100/x', false],
    ['', false],
  ])('Host %s names this server at its port: %s', (host, expected) => {
    expect(isListeningAuthority(host, { port: 4100 })).toBe(expected)
  })
})

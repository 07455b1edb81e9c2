import { setTimeout as sleep } from 'node:timers/promises'
import { createServer, type Server, type Socket } from 'node:net'
import IORedis from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startApp, type RunningApp } from '../../test-support/app'

// The request gate through real HTTP: rate limit on a real Redis, client-IP rules, fail-open,
// headers on every response.

const REDIS_DB_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/1'
const get = (app: RunningApp, path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers })

/** Fixed windows are aligned to multiples of the window: start a burst early in a fresh one. */
async function atWindowStart(windowS: number, needS: number) {
  const into = (Date.now() / 1000) % windowS
  if (windowS - into < needS) await sleep((windowS - into) * 1000 + 50)
}

describe('rate limit on Redis', () => {
  let app: RunningApp
  beforeAll(async () => {
    const redis = new IORedis(REDIS_DB_URL)
    await redis.flushdb()
    redis.disconnect()
    // A generous store timeout: this test is about counting, and a loaded machine must not make the
    // limiter fail open mid-burst (fail-open has its own tests below).
    app = await startApp({ REDIS_URL: REDIS_DB_URL, TRUSTED_IP_HEADER: 'x-forwarded-for', RATE_LIMIT_TIMEOUT_MS: '5000' })
  })
  afterAll(() => app.stop())

  it('allows exactly 500 requests per IP in a window, then answers 429 while another IP is served', async () => {
    await atWindowStart(30, 15)
    const ipA = { 'x-forwarded-for': '203.0.113.10' }
    const statuses: number[] = []
    const remaining: number[] = []
    for (let batch = 0; batch < 10; batch++) {
      const responses = await Promise.all(Array.from({ length: 50 }, () => get(app, '/api/generate/guid', ipA)))
      for (const r of responses) {
        statuses.push(r.status)
        remaining.push(Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]))
        await r.body?.cancel()
      }
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(500)
    expect(app.logs()).not.toMatch(/rate-limit store unavailable/)
    expect(Math.min(...remaining)).toBe(0)
    expect(new Set(remaining).size).toBe(500) // each request saw its own count

    const blocked = await get(app, '/api/generate/guid', ipA)
    expect(blocked.status).toBe(429)
    const retryAfter = Number(blocked.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(30)
    expect(blocked.headers.get('ratelimit-policy')).toBe('"default";q=500;w=30')
    expect(blocked.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/)
    const body = await blocked.json()
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.requestId).toBe(blocked.headers.get('x-request-id'))

    const other = await get(app, '/api/generate/guid', { 'x-forwarded-for': '203.0.113.11' })
    expect(other.status).toBe(200)
    expect(other.headers.get('ratelimit')).toMatch(/^"default";r=499;t=\d+$/)
  })
})

describe('client IP', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp({ RATE_LIMIT_MAX: '5' })
  })
  afterAll(() => app.stop())

  it('ignores X-Forwarded-For unless configured, so a client cannot pick its own bucket', async () => {
    await atWindowStart(30, 5)
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const r = await get(app, '/api/generate/guid', { 'x-forwarded-for': `198.51.100.${i}` })
      statuses.push(r.status)
      await r.body?.cancel()
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
  })
})

describe('window reset', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '2' })
  })
  afterAll(() => app.stop())

  it('serves the client again once the window has passed', async () => {
    await atWindowStart(2, 1)
    for (let i = 0; i < 3; i++) expect((await get(app, '/api/generate/guid')).status).toBe(200)
    const blocked = await get(app, '/api/generate/guid')
    expect(blocked.status).toBe(429)
    await sleep(Number(blocked.headers.get('retry-after')) * 1000 + 100)
    const again = await get(app, '/api/generate/guid')
    expect(again.status).toBe(200)
    expect(again.headers.get('ratelimit')).toMatch(/^"default";r=2;t=\d+$/)
  })
})

describe('dead rate-limit store', () => {
  let refused: RunningApp
  let silent: RunningApp
  let blackhole: Server
  const sockets: Socket[] = []
  beforeAll(async () => {
    const closedPort = await freePort()
    // A store that accepts connections and never answers: the limiter must time out, not hang.
    blackhole = createServer((s) => sockets.push(s))
    const silentPort = await freePort()
    await new Promise<void>((r) => blackhole.listen(silentPort, '127.0.0.1', r))
    refused = await startApp({ REDIS_URL: `redis://127.0.0.1:${closedPort}` })
    silent = await startApp({ REDIS_URL: `redis://127.0.0.1:${silentPort}` })
  })
  afterAll(async () => {
    await Promise.all([refused.stop(), silent.stop()])
    sockets.forEach((s) => s.destroy())
    blackhole.close()
  })

  it.each(['refused', 'silent'] as const)('fails open when the store is %s and health reports it', async (which) => {
    const app = which === 'refused' ? refused : silent
    const r = await get(app, '/api/generate/guid')
    expect(r.status).toBe(200)
    expect(r.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/)
    const health = await get(app, '/api/health')
    expect(health.status).toBe(200)
    const body = await health.json()
    expect(body.status).toBe('degraded')
    expect(body.checks.rateLimitStore).toMatchObject({ status: 'down', required: false })
    await expect.poll(() => app.logs()).toMatch(/rate-limit store unavailable/) // the server's output reaches us on its own pipe
  })
})

describe('headers and envelopes', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(() => app.stop())

  it('echoes a well-formed caller request id and replaces a malformed one', async () => {
    const id = '0b6d1c9e-4a4e-4b0e-9c9f-2f7f6f1d3a11'
    expect((await get(app, '/api/health', { 'x-request-id': id })).headers.get('x-request-id')).toBe(id)
    const replaced = (await get(app, '/api/health', { 'x-request-id': 'x; drop table' })).headers.get('x-request-id')
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers unknown /api routes with the 404 envelope and rate-limit headers', async () => {
    const r = await get(app, '/api/does/not/exist')
    expect(r.status).toBe(404)
    expect(r.headers.get('ratelimit-policy')).toBe('"default";q=500;w=30')
    const body = await r.json()
    expect(body.error).toMatchObject({ code: 'not_found', requestId: r.headers.get('x-request-id') })
  })

  it('opens public operations to any browser origin', async () => {
    const pre = await fetch(`${app.url}/api/generate/guid`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
    })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('*')
    const r = await get(app, '/api/generate/guid', { origin: 'https://elsewhere.example' })
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
    expect(r.headers.get('access-control-expose-headers')).toMatch(/RateLimit/)
  })

  it('turns malformed JSON into a 400, never a 500', async () => {
    const r = await fetch(`${app.url}/api/directory/convertid`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ids": [' })
    expect(r.status).toBe(400)
    expect((await r.json()).error.message).toMatch(/not valid JSON/)
  })
})

describe('start-up', () => {
  it('refuses to start with an invalid variable and names it', async () => {
    await expect(startApp({ RATE_LIMIT_WINDOW_S: 'soon' })).rejects.toThrow(/RATE_LIMIT_WINDOW_S/)
  })

  it('refuses a short secret, and one secret in two roles, naming both variables', async () => {
    await expect(startApp({ LOGPUSH_SECRET: 'logpush' })).rejects.toThrow(/LOGPUSH_SECRET is 7 characters long; a secret needs at least 32/)
    const shared = 'one-secret-for-two-roles-0123456789abcdef'
    await expect(startApp({ CRON_SECRET: shared, LOGPUSH_SECRET: shared })).rejects.toThrow(/CRON_SECRET and LOGPUSH_SECRET are the same secret/)
  })
})

// Behind a proxy (docs/deployment.md, "Behind a proxy"). The test client connects from 127.0.0.1,
// listed in TRUSTED_PROXIES: it plays the proxy, which appends the client it saw to
// X-Forwarded-For after whatever the client itself sent.
const CRON_SECRET = 'cron-secret-for-the-gate-tests-0123456789'
const LOGPUSH_SECRET = 'logpush-secret-for-the-gate-tests-0123456789'
const viaProxy = (client: string, sentByClient?: string) => ({ 'x-forwarded-for': sentByClient ? `${sentByClient}, ${client}` : client })

describe('behind a proxy', () => {
  let app: RunningApp
  let elsewhere: RunningApp
  beforeAll(async () => {
    const redis = new IORedis(REDIS_DB_URL)
    await redis.flushdb()
    redis.disconnect()
    ;[app, elsewhere] = await Promise.all([
      // On the shared store, so that its counting (and the failures' check before counting) is what is tested.
      startApp({
        REDIS_URL: REDIS_DB_URL,
        RATE_LIMIT_TIMEOUT_MS: '5000',
        RATE_LIMIT_MAX: '5',
        TRUSTED_IP_HEADER: 'x-forwarded-for',
        TRUSTED_PROXIES: '127.0.0.1,::1',
        CRON_SECRET,
        LOGPUSH_SECRET,
      }),
      // The proxies are somewhere else: the test client is a stranger whose headers do not count.
      startApp({ RATE_LIMIT_MAX: '5', TRUSTED_IP_HEADER: 'x-forwarded-for', TRUSTED_PROXIES: '10.0.0.0/8' }),
    ])
  })
  afterAll(() => Promise.all([app.stop(), elsewhere.stop()]))

  async function burst(target: RunningApp, n: number, headersOf: (i: number) => Record<string, string>, path = '/api/generate/guid') {
    const statuses: number[] = []
    for (let i = 0; i < n; i++) {
      const r = await get(target, path, headersOf(i))
      statuses.push(r.status)
      await r.body?.cancel()
    }
    return statuses
  }

  it('rotating the left-most X-Forwarded-For entries does not escape the limit', async () => {
    await atWindowStart(30, 10)
    const statuses = await burst(app, 7, (i) => viaProxy('198.51.100.7', `203.0.113.${i + 1}`))
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429])
    const blocked = await get(app, '/api/generate/guid', viaProxy('198.51.100.7', '192.0.2.99'))
    expect(blocked.status).toBe(429)
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await blocked.json()).error.code).toBe('rate_limited')
    // Another client behind the same proxy has its own quota.
    expect((await get(app, '/api/generate/guid', viaProxy('198.51.100.8', '198.51.100.7'))).status).toBe(200)
  })

  it('ignores forwarding headers from a peer that is not a trusted proxy', async () => {
    await atWindowStart(30, 10)
    const statuses = await burst(elsewhere, 6, (i) => ({ 'x-forwarded-for': `203.0.113.${i + 1}` }))
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
  })

  it('puts the addresses of one IPv6 /64 in one bucket', async () => {
    await atWindowStart(30, 10)
    const statuses = await burst(app, 6, (i) => viaProxy(`2001:db8:77:1:${i + 1}::1`))
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    expect((await get(app, '/api/generate/guid', viaProxy('2001:db8:77:2::1'))).status).toBe(200)
  })

  it("answers the probes 200 after a client used up its limit with the balancer's own address", async () => {
    await atWindowStart(30, 10)
    const statuses = await burst(app, 6, () => ({ 'x-forwarded-for': '127.0.0.1' }))
    expect(statuses.at(-1)).toBe(429)
    for (const headers of [{}, { 'x-forwarded-for': '127.0.0.1' }] as Record<string, string>[]) {
      const live = await get(app, '/api/health?probe=live', headers)
      expect(live.status).toBe(200)
      expect(live.headers.get('ratelimit-policy')).toMatch(/^"probe";q=600;w=30$/)
      const ready = await get(app, '/api/health', headers)
      expect(ready.status).toBe(200)
      expect((await ready.json()).status).toMatch(/^(ok|degraded)$/)
    }
    // The client is still limited: the probes' bucket is theirs alone.
    expect((await get(app, '/api/generate/guid', { 'x-forwarded-for': '127.0.0.1' })).status).toBe(429)
  })

  it('does not count a cron call that carries CRON_SECRET against its address', async () => {
    await atWindowStart(30, 15)
    const scheduler = viaProxy('192.0.2.50')
    const bearer = { ...scheduler, authorization: `Bearer ${CRON_SECRET}` }
    const dry = await get(app, '/api/cron/partition-maintenance?dryRun=true', bearer)
    expect(dry.status).toBe(200)
    expect(await dry.json()).toMatchObject({ job: 'partition-maintenance', trigger: 'cron' })
    // Past the limit of 5 requests: every call still reaches the route (404: no such job).
    expect(await burst(app, 7, () => bearer, '/api/cron/no-such-job')).toEqual(Array(7).fill(404))
    // The scheduler's address still has its whole quota for ordinary requests.
    const after = await get(app, '/api/generate/guid', scheduler)
    expect(after.status).toBe(200)
    expect(after.headers.get('ratelimit')).toMatch(/^"default";r=4;t=\d+$/)
  })

  it('stops cron secret guessing at a 429, which the right secret does not lift', async () => {
    await atWindowStart(30, 15)
    const guesser = viaProxy('192.0.2.60')
    const guesses = await burst(app, 12, (i) => ({ ...guesser, authorization: `Bearer guess-${i}` }), '/api/cron/alerts')
    // Each wrong secret is a request too: the address's limit of 5 comes first, then the failures' 10.
    expect(guesses.slice(0, 5)).toEqual(Array(5).fill(401))
    expect(guesses.slice(5)).toEqual(Array(7).fill(429))
    const right = await get(app, '/api/cron/no-such-job', { ...guesser, authorization: `Bearer ${CRON_SECRET}` })
    expect(right.status).toBe(429)
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    // The cron routes' own error shape.
    expect(await right.json()).toEqual({
      error: expect.stringMatching(/^Too many failed authentications from this address/),
      requestId: right.headers.get('x-request-id'),
    })
  })

  it('stops ingest secret guessing at a 429 with Retry-After, in the ingest error shape', async () => {
    await atWindowStart(30, 15)
    const guesser = viaProxy('192.0.2.70')
    const post = (secret: string, client = guesser) =>
      fetch(`${app.url}/query/ingest/http`, {
        method: 'POST',
        headers: { ...client, 'x-logpush-secret': secret, 'content-type': 'application/x-ndjson' },
        body: '',
      })
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const r = await post(`guess-${i}`)
      statuses.push(r.status)
      await r.body?.cancel()
    }
    expect(statuses).toEqual([...Array(10).fill(403), 429, 429])
    const right = await post(LOGPUSH_SECRET)
    expect(right.status).toBe(429)
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    const body = await right.json()
    expect(body.error).toMatchObject({ code: 'rate_limited', requestId: right.headers.get('x-request-id') })
    expect(body.error.message).toMatch(/Too many failed authentications from this address: 10 per 30 seconds/)
    // Logpush itself, from its own address, is not held up.
    const logpush = await post(LOGPUSH_SECRET, viaProxy('192.0.2.71'))
    expect(logpush.status).toBe(200)
    expect(await logpush.json()).toMatchObject({ dataset: 'http', lines: 0 })
  })

  it('accepts on each route only its own secret', async () => {
    const caller = viaProxy('192.0.2.80')
    const ingest = (headers: Record<string, string>) =>
      fetch(`${app.url}/query/ingest/http`, { method: 'POST', headers: { ...caller, ...headers, 'content-type': 'application/x-ndjson' }, body: '' })
    const cronBearerOnIngest = await ingest({ authorization: `Bearer ${CRON_SECRET}` })
    expect(cronBearerOnIngest.status).toBe(403)
    expect((await cronBearerOnIngest.json()).error.code).toBe('forbidden')
    const cronSecretAsLogpushHeader = await ingest({ 'x-logpush-secret': CRON_SECRET })
    expect(cronSecretAsLogpushHeader.status).toBe(403)
    expect((await ingest({ authorization: `Bearer ${LOGPUSH_SECRET}` })).status).toBe(200)
    const logpushOnCron = await get(app, '/api/cron/no-such-job', { ...caller, authorization: `Bearer ${LOGPUSH_SECRET}` })
    expect(logpushOnCron.status).toBe(401)
    expect(await logpushOnCron.json()).toEqual({ error: 'Invalid cron secret.', requestId: logpushOnCron.headers.get('x-request-id') })
  })
})

describe('query application rate limit', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp({ QUERY_RATE_LIMIT_MAX: '3' })
  })
  afterAll(() => app.stop())

  it('counts per person (the local operator), and refused requests per address', async () => {
    await atWindowStart(30, 10)
    const me = (headers: Record<string, string> = {}) => get(app, '/query/api/me', headers)
    // Without the key: refused, and counted against the address; the fourth is a 429.
    const refused: number[] = []
    for (let i = 0; i < 4; i++) refused.push((await me()).status)
    expect(refused).toEqual([401, 401, 401, 429])
    const limited = await me()
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await limited.json()).error).toMatchObject({ code: 'rate_limited', requestId: limited.headers.get('x-request-id') })
    // The operator, at the same address, has a quota of its own.
    const operator = []
    for (let i = 0; i < 4; i++) operator.push((await me({ cookie: app.operatorCookie })).status)
    expect(operator).toEqual([200, 200, 200, 429])
  })
})

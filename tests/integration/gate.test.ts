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
    for (let i = 0; i < 3; i++) expect((await get(app, '/api/health')).status).toBe(200)
    const blocked = await get(app, '/api/health')
    expect(blocked.status).toBe(429)
    await sleep(Number(blocked.headers.get('retry-after')) * 1000 + 100)
    const again = await get(app, '/api/health')
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
})

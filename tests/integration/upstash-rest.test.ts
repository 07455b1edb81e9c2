import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import IORedis from 'ioredis'
import { Redis } from '@upstash/redis'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { startUpstashRest, type UpstashRest } from '../../test-support/upstash-rest'

// The Vercel shape of the rate-limit store (KV_REST_API_URL, KV_REST_API_TOKEN: Upstash's REST
// API) exercised through test-support/upstash-rest.ts, a REST front over the real Redis. First the
// front itself, on the wire and through @upstash/redis, so that what the app tests below rest on
// is known to speak the protocol as the client expects it; then two instances of the built app on
// it, sharing one limit, and what they do while it is down (docs/failure-behaviour.md).

const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379')
redisUrl.pathname = '/9'
const REDIS_DB_URL = redisUrl.toString()

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64')

describe('the Upstash REST front', () => {
  let front: UpstashRest
  let redis: IORedis
  beforeAll(async () => {
    redis = new IORedis(REDIS_DB_URL)
    front = await startUpstashRest({ redisUrl: REDIS_DB_URL })
  })
  beforeEach(() => redis.flushdb())
  afterAll(async () => {
    await front.stop()
    redis.disconnect()
  })

  const post = (path: string, body: unknown, { base64 = true, token = front.token } = {}) =>
    fetch(`${front.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(base64 ? { 'upstash-encoding': 'base64' } : {}) },
      body: JSON.stringify(body),
    })
  const answer = async (path: string, body: unknown, options?: { base64?: boolean; token?: string }) => {
    const res = await post(path, body, options)
    return { status: res.status, body: await res.json() }
  }

  it('answers one command in the encoding asked for: bulk strings in base64, integers, nulls and OK as they are', async () => {
    expect(await answer('/', ['SET', 'greeting', 'héllo wörld'])).toEqual({ status: 200, body: { result: 'OK' } })
    expect(await answer('/', ['GET', 'greeting'])).toEqual({ status: 200, body: { result: b64('héllo wörld') } })
    expect(await answer('/', ['GET', 'greeting'], { base64: false })).toEqual({ status: 200, body: { result: 'héllo wörld' } })
    expect(await answer('/', ['INCRBY', 'hits', 5])).toEqual({ status: 200, body: { result: 5 } })
    expect(await answer('/', ['GET', 'absent'])).toEqual({ status: 200, body: { result: null } })
    await redis.hset('h', 'field', 'value')
    expect(await answer('/', ['HGETALL', 'h'])).toEqual({ status: 200, body: { result: [b64('field'), b64('value')] } })
    expect(await answer('/', ['MGET', 'greeting', 'absent', 'hits'])).toEqual({ status: 200, body: { result: [b64('héllo wörld'), null, b64('5')] } })
    // Nested arrays, as a Lua table or XRANGE returns them.
    expect(await answer('/', ['EVAL', 'return {1, "x", {2, "y", false}}', 0])).toEqual({ status: 200, body: { result: [1, b64('x'), [2, b64('y'), null]] } })
    expect(await redis.get('greeting')).toBe('héllo wörld') // it went to the real Redis, database 9
  })

  it('answers a Redis error as { error } with 400, a missing or wrong token with 401', async () => {
    await redis.set('text', 'not a number')
    const failed = await answer('/', ['INCR', 'text'])
    expect(failed.status).toBe(400)
    expect(failed.body).toEqual({ error: expect.stringMatching(/^ERR value is not an integer/) })
    expect(await answer('/', ['PING'], { token: 'wrong' })).toEqual({ status: 401, body: { error: 'Unauthorized' } })
    const bare = await fetch(front.url, { method: 'POST', body: '["PING"]' })
    expect(bare.status).toBe(401)
    expect(await redis.exists('text')).toBe(1)
  })

  it('answers /pipeline per command, errors included, and /multi-exec in one transaction', async () => {
    await redis.set('text', 'words')
    expect(
      await answer('/pipeline', [
        ['SET', 'n', '1'],
        ['INCR', 'n'],
        ['INCR', 'text'],
        ['GET', 'text'],
      ]),
    ).toEqual({
      status: 200,
      body: [{ result: 'OK' }, { result: 2 }, { error: expect.stringMatching(/^ERR value is not an integer/) }, { result: b64('words') }],
    })
    expect(
      await answer('/multi-exec', [
        ['INCR', 'n'],
        ['LPUSH', 'l', 'x', 'y'],
        ['LRANGE', 'l', 0, -1],
      ]),
    ).toEqual({
      status: 200,
      body: [{ result: 3 }, { result: 2 }, { result: [b64('y'), b64('x')] }],
    })
  })

  it('serves @upstash/redis: values, hashes, pipelines, transactions, and a wrong token rejected', async () => {
    const client = new Redis({ url: front.url, token: front.token, enableTelemetry: false, retry: false })
    await client.set('doc', { name: 'ünïcode', n: 3 })
    expect(await client.get('doc')).toEqual({ name: 'ünïcode', n: 3 })
    await client.hset('h', { a: 'one', b: 2 })
    expect(await client.hgetall('h')).toEqual({ a: 'one', b: 2 })
    expect(await client.pipeline().incr('c').incr('c').get('c').exec()).toEqual([1, 2, 2])
    expect(await client.multi().set('k', 'v').get('k').exec()).toEqual(['OK', 'v'])
    const stranger = new Redis({ url: front.url, token: 'not-the-token', enableTelemetry: false, retry: false })
    await expect(stranger.get('doc')).rejects.toThrow(/Unauthorized/)
  })

  it("runs @upstash/ratelimit's flagged scripts: NOSCRIPT first, EVAL, then EVALSHA of the hash the client knows", async () => {
    const client = new Redis({ url: front.url, token: front.token, enableTelemetry: false, retry: false })
    const script = '#!lua flags=allow-key-locking\nreturn redis.call("INCRBY", KEYS[1], ARGV[1])'
    const hash = createHash('sha1').update(script).digest('hex')
    const before = front.counts()
    await expect(client.evalsha(hash, ['rl'], [2])).rejects.toThrow(/NOSCRIPT/)
    expect(await client.eval(script, ['rl'], [2])).toBe(2)
    expect(await client.evalsha(hash, ['rl'], [3])).toBe(5)
    expect(await client.scriptLoad(script)).toBe(hash)
    const after = front.counts()
    expect((after.failed.evalsha ?? 0) - (before.failed.evalsha ?? 0)).toBe(1)
    expect((after.ok.evalsha ?? 0) - (before.ok.evalsha ?? 0)).toBe(1)
    expect(await redis.get('rl')).toBe('5')
  })
})

// The default limit (500) in a window of a day rather than 30 s: on a loaded machine 700 requests
// through two instances can take most of a minute, and all of them must fall in one fixed window
// (windows are aligned to multiples of their length: a day's ends at midnight UTC).
const WINDOW_S = 86_400
const windowEndsInS = (at: number) => Math.ceil(((Math.floor(at / 1000 / WINDOW_S) + 1) * WINDOW_S * 1000 - at) / 1000)

/** Start a burst early enough in its window (this waits only in the last minutes before midnight UTC). */
async function atWindowStart(needS: number) {
  const left = windowEndsInS(Date.now())
  if (left < needS) await sleep(left * 1000 + 50)
}

interface Answered {
  instance: number
  status: number
  /** r= of the RateLimit header. */
  remaining: number
  policy: string | null
  retryAfter: string | null
  /** Epoch ms the answer came. */
  at: number
  code?: string
}

describe('two instances on the Upstash REST store (KV_REST_API_URL, no REDIS_URL)', () => {
  let front: UpstashRest
  let apps: RunningApp[]
  let redis: IORedis
  beforeAll(async () => {
    redis = new IORedis(REDIS_DB_URL)
    front = await startUpstashRest({ redisUrl: REDIS_DB_URL })
    // One client behind a proxy at 127.0.0.1 (the test): the limiter sees the address the proxy
    // appended, the same on both instances. A generous store timeout: these tests are about
    // counting, and a loaded machine must not make the limiter fail open mid-burst.
    const env = {
      KV_REST_API_URL: front.url,
      KV_REST_API_TOKEN: front.token,
      TRUSTED_IP_HEADER: 'x-forwarded-for',
      TRUSTED_PROXIES: '127.0.0.1,::1',
      RATE_LIMIT_TIMEOUT_MS: '5000',
      RATE_LIMIT_WINDOW_S: String(WINDOW_S),
    }
    apps = await Promise.all([startApp(env), startApp(env)])
  })
  beforeEach(() => redis.flushdb())
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()))
    await front.stop()
    redis.disconnect()
  })

  const health = async (app: RunningApp) => {
    const res = await fetch(`${app.url}/api/health`)
    return { status: res.status, body: await res.json() }
  }
  /** `n` requests of `client`, `concurrency` at a time, the i-th to `instanceOf(i)`. */
  async function burst(n: number, client: string, instanceOf: (i: number) => number, concurrency: number): Promise<Answered[]> {
    const answered: Answered[] = []
    for (let start = 0; start < n; start += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, n - start) }, async (_, j): Promise<Answered> => {
        const instance = instanceOf(start + j)
        const res = await fetch(`${apps[instance].url}/api/generate/guid`, { headers: { 'x-forwarded-for': client } })
        const remaining = Number(/;r=(\d+);/.exec(res.headers.get('ratelimit') ?? '')?.[1] ?? NaN)
        const common = {
          instance,
          status: res.status,
          remaining,
          policy: res.headers.get('ratelimit-policy'),
          retryAfter: res.headers.get('retry-after'),
          at: Date.now(),
        }
        if (res.status === 429) return { ...common, code: (await res.json()).error.code }
        await res.body?.cancel()
        return common
      })
      answered.push(...(await Promise.all(batch)))
    }
    return answered
  }
  const scriptRuns = () => {
    const { ok } = front.counts()
    return (ok.evalsha ?? 0) + (ok.eval ?? 0)
  }

  it('shares one limit: 700 requests of one client alternating between them give exactly 500 × 200 and 200 × 429', { timeout: 360_000 }, async () => {
    for (const app of apps) expect((await health(app)).body.checks.rateLimitStore).toMatchObject({ status: 'ok', detail: 'upstash store reachable' })
    await atWindowStart(240)
    const before = front.counts()
    const answered = await burst(700, '203.0.113.70', (i) => i % 2, 20)

    const ok = answered.filter((a) => a.status === 200)
    const limited = answered.filter((a) => a.status === 429)
    expect(ok).toHaveLength(500)
    expect(limited).toHaveLength(200)
    // Each instance got 350 requests, fewer than the limit, and still refused some: the count is shared.
    for (const instance of [0, 1]) expect(limited.filter((a) => a.instance === instance).length).toBeGreaterThan(0)
    // Every answer carries the headers; each request served saw its own count, 499 down to 0.
    expect(answered.every((a) => a.policy === `"default";q=500;w=${WINDOW_S}`)).toBe(true)
    expect(ok.map((a) => a.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i))
    for (const a of limited) {
      expect(a.remaining).toBe(0)
      expect(a.code).toBe('rate_limited')
      // The seconds left in the window when it was answered.
      expect(Math.abs(Number(a.retryAfter) - windowEndsInS(a.at))).toBeLessThanOrEqual(2)
    }

    // The front saw every one of them: 700 runs of the limiter's script, each NOSCRIPT followed by one EVAL.
    const after = front.counts()
    expect(scriptRuns() - ((before.ok.evalsha ?? 0) + (before.ok.eval ?? 0))).toBe(700)
    expect((after.failed.evalsha ?? 0) - (before.failed.evalsha ?? 0)).toBe((after.ok.eval ?? 0) - (before.ok.eval ?? 0))
    // …and Redis holds one counter for the one client, at 700.
    const keys = await redis.keys('rl:ip:*')
    expect(keys).toHaveLength(1)
    expect(keys[0]).toContain('203.0.113.70')
    expect(await redis.get(keys[0])).toBe('700')
    for (const app of apps) expect(app.logs()).not.toMatch(/rate-limit store unavailable/)
  })

  it(
    'while the REST store is down each instance limits with its own count, health says degraded, and the shared count resumes when it answers',
    { timeout: 360_000 },
    async () => {
      await atWindowStart(240)
      const client = '203.0.113.71'
      const shared = await burst(100, client, (i) => i % 2, 10)
      expect(shared.every((a) => a.status === 200)).toBe(true)
      expect(Math.min(...shared.map((a) => a.remaining))).toBe(400)

      const { port, token } = front
      await front.stop()
      // Fail open to the in-memory count (lib/ratelimit/limiter.ts): instance 0 counted 50 of the
      // 100 itself, so it serves 450 more and then refuses; instance 1 still has its own 450.
      const alone = await burst(470, client, () => 0, 10)
      expect(alone.filter((a) => a.status === 200)).toHaveLength(450)
      expect(alone.filter((a) => a.status === 429)).toHaveLength(20)
      expect(alone.filter((a) => a.status === 429).every((a) => a.code === 'rate_limited' && Number(a.retryAfter) >= 1)).toBe(true)
      const [other] = await burst(1, client, () => 1, 1)
      expect(other).toMatchObject({ status: 200, remaining: 449 })

      for (const app of apps) await expect.poll(() => app.logs()).toMatch(/rate-limit store unavailable; this request limited by the in-memory count/)
      await expect.poll(() => apps[0].logs()).toMatch(/upstash store unavailable; circuit open/)
      const down = await health(apps[0])
      expect(down.status).toBe(200)
      expect(down.body.status).toBe('degraded')
      expect(down.body.checks.rateLimitStore).toMatchObject({ status: 'down', required: false, detail: expect.stringMatching(/^upstash store unreachable/) })
      expect(down.body.checks.rateLimitStore.breaker.state).toBe('open')

      // The store answers again where the app expects it: the breaker's probe closes the circuit.
      front = await startUpstashRest({ redisUrl: REDIS_DB_URL, port, token })
      await expect.poll(async () => (await health(apps[0])).body.checks.rateLimitStore.status, { timeout: 20_000, interval: 250 }).toBe('ok')
      expect((await health(apps[0])).body.checks.rateLimitStore).toMatchObject({ status: 'ok', breaker: { state: 'closed', opened: 1 } })
      // Back on the shared count, which held the 100 requests counted before the outage.
      const [resumed] = await burst(1, client, () => 0, 1)
      expect(resumed).toMatchObject({ status: 200, remaining: 399 })
      const key = (await redis.keys('rl:ip:*')).find((k) => k.includes(client))!
      expect(await redis.get(key)).toBe('101')
    },
  )

  it('answers while the REST store hangs: the limiter gives up after RATE_LIMIT_TIMEOUT_MS and counts in memory', { timeout: 120_000 }, async () => {
    await atWindowStart(240)
    front.hang()
    const started = Date.now()
    const answered = await burst(4, '203.0.113.72', () => 1, 4)
    // Each waited for the store's deadline (5 s here, 200 ms by default), not for the store.
    expect(answered.map((a) => [a.status, a.remaining])).toEqual(Array.from({ length: 4 }, () => [200, expect.any(Number)]))
    expect(Date.now() - started).toBeLessThan(30_000)
    await expect
      .poll(() => apps[1].logs())
      .toMatch(/rate-limit store unavailable; this request limited by the in-memory count","reason":"timed out after 5000 ms"/)
    const down = await health(apps[1])
    expect(down.body.status).toBe('degraded')
    expect(down.body.checks.rateLimitStore).toMatchObject({ status: 'down', breaker: { state: 'open' } })

    front.resume()
    await expect.poll(async () => (await health(apps[1])).body.checks.rateLimitStore.status, { timeout: 20_000, interval: 250 }).toBe('ok')
    const [resumed] = await burst(1, '203.0.113.72', () => 1, 1)
    // The store never counted the four it did not answer: the app sends each command once
    // (lib/redis.ts), not again when the connection it waited on drops.
    expect(resumed).toMatchObject({ status: 200, remaining: 499 })
  })
})

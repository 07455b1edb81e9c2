import { setTimeout as sleep } from 'node:timers/promises'
import { request as httpRequest, Agent } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp } from '../../test-support/app'
import { startFakeDoh } from '../../test-support/fake-doh'
import { fixtureJson, sendJson, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { pollUntil, report } from '../../test-support/fault'

// SIGTERM while slow requests are in flight: every one completes with 200, a kept-alive connection
// is told `Connection: close`, new connections are refused, and the process exits 0. With a grace
// period shorter than the requests, they are cut and the log names them.

const UPSTREAM_DELAY_MS = 1100
const sample = fixtureJson<Record<string, unknown>>('ip-api/json-all-fields-24.48.0.1.json')

let upstream: FakeUpstream
let doh: Awaited<ReturnType<typeof startFakeDoh>>
beforeAll(async () => {
  // A slow ip-api: each lookup answers after UPSTREAM_DELAY_MS.
  upstream = await startFakeUpstream(async (req, res) => {
    await sleep(UPSTREAM_DELAY_MS)
    sendJson(res, 200, { ...sample, query: decodeURIComponent(req.path.replace(/^\/json\//, '')) }, { 'X-Rl': '40', 'X-Ttl': '50' })
  })
  doh = await startFakeDoh({ records: {} })
})
afterAll(async () => {
  await upstream.close()
  await doh.close()
})

/** GET over a given agent, resolving with status, headers and body. */
function get(url: string, agent: Agent): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { agent }, (res) => {
      let body = ''
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }))
    })
      .on('error', reject)
      .end()
  })
}

describe('SIGTERM with slow requests in flight', () => {
  it('lets all of them finish with 200, closes kept-alive connections and exits 0', async () => {
    const app = await startApp({ IP_API_URL: upstream.url, DOH_URL: doh.url, UPSTREAM_RETRIES: '0' })
    const agent = new Agent({ keepAlive: true, maxSockets: 20 })
    const inflight = Array.from({ length: 10 }, (_, i) => get(`${app.url}/api/ipcheck?ip=24.48.2.${i + 1}`, agent))
    // All ten are in flight: the server has passed each to the (slow) upstream.
    await pollUntil(
      async () => upstream.requests.filter((r) => r.path.startsWith('/json/24.48.2.')).length,
      (n) => n === 10,
      20_000,
      20,
    )
    const t0 = Date.now()
    app.signal('SIGTERM')
    await sleep(100)
    const refused = await get(`${app.url}/api/health`, new Agent({ keepAlive: false })).then(
      () => false,
      (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
    )
    const answers = await Promise.all(inflight)
    const code = await app.exited
    const exitMs = Date.now() - t0
    report('sigterm with slow requests', {
      inflight: answers.length,
      ok: answers.filter((a) => a.status === 200).length,
      connectionClose: answers.filter((a) => a.connection === 'close').length,
      newConnectionRefused: refused,
      exitCode: code,
      exitMs,
    })
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    expect(answers.every((a) => JSON.parse(a.body).result?.startsWith('24.48.2.'))).toBe(true)
    expect(answers.every((a) => a.connection === 'close')).toBe(true)
    expect(refused).toBe(true)
    expect(code).toBe(0)
    expect(app.logs()).toMatch(/"msg":"requests drained","completed":10,"cut":0/)
    agent.destroy()
  })

  it('cuts what is still running at the end of the grace period and says so', async () => {
    const app = await startApp({ IP_API_URL: upstream.url, DOH_URL: doh.url, UPSTREAM_RETRIES: '0', SHUTDOWN_GRACE_MS: '300' })
    const agent = new Agent({ keepAlive: true })
    const inflight = Array.from({ length: 3 }, (_, i) => get(`${app.url}/api/ipcheck?ip=24.48.3.${i + 1}`, agent).catch((error: Error) => error))
    await pollUntil(
      async () => upstream.requests.filter((r) => r.path.startsWith('/json/24.48.3.')).length,
      (n) => n === 3,
      20_000,
      20,
    )
    const t0 = Date.now()
    app.signal('SIGTERM')
    const code = await app.exited
    const exitMs = Date.now() - t0
    const results = await Promise.all(inflight)
    report('sigterm past the grace period', { cut: results.filter((r) => r instanceof Error).length, exitCode: code, exitMs })
    expect(code).toBe(0)
    expect(exitMs).toBeLessThan(UPSTREAM_DELAY_MS + 300)
    expect(results.every((r) => r instanceof Error)).toBe(true)
    expect(app.logs()).toMatch(/requests cut short at the end of the grace period.*"url":"\/api\/ipcheck\?ip=24\.48\.3\./)
    agent.destroy()
  })

  it('exits at once on a second signal', async () => {
    const app = await startApp({ IP_API_URL: upstream.url, DOH_URL: doh.url, UPSTREAM_RETRIES: '0' })
    const agent = new Agent({ keepAlive: true })
    const pending = get(`${app.url}/api/ipcheck?ip=24.48.4.1`, agent).catch((error: Error) => error)
    await pollUntil(
      async () => upstream.requests.filter((r) => r.path === '/json/24.48.4.1').length,
      (n) => n === 1,
      20_000,
      20,
    )
    const t0 = Date.now()
    app.signal('SIGTERM')
    await sleep(50)
    app.signal('SIGTERM')
    const code = await app.exited
    await pending
    report('second signal', { exitCode: code, exitMs: Date.now() - t0 })
    expect(code).toBe(143)
    expect(Date.now() - t0).toBeLessThan(UPSTREAM_DELAY_MS)
    agent.destroy()
  })

  it('with a readiness delay: readiness answers 503 at once while new connections are still answered, then the listener closes and the in-flight requests finish', async () => {
    const DELAY_MS = 2500
    const app = await startApp({ IP_API_URL: upstream.url, DOH_URL: doh.url, UPSTREAM_RETRIES: '0', SHUTDOWN_READINESS_DELAY_MS: String(DELAY_MS) })
    const fresh = () => new Agent({ keepAlive: false })
    expect((await get(`${app.url}/api/health`, fresh())).status).toBe(200)
    const t0 = Date.now()
    app.signal('SIGTERM')
    // Readiness fails first (the balancer's health check sees it), liveness still answers.
    const ready = await pollUntil(
      () => get(`${app.url}/api/health`, fresh()),
      (r) => r.status === 503,
      DELAY_MS,
      20,
    )
    const readyFailedMs = Date.now() - t0
    expect(ready.status).toBe(503)
    expect(ready.body).toMatch(/Draining: this instance is shutting down/)
    const live = await get(`${app.url}/api/health?probe=live`, fresh())
    expect(live.status).toBe(200)
    // New connections during the delay are accepted and answered.
    const during = await get(`${app.url}/api/ipcheck?ip=24.48.5.1`, fresh())
    expect(during.status).toBe(200)
    expect(Date.now() - t0).toBeLessThan(DELAY_MS) // still within the delay
    // A slow request started near the end of the delay is in flight when the listener closes.
    await sleep(Math.max(0, DELAY_MS - 400 - (Date.now() - t0)))
    const lastOne = get(`${app.url}/api/ipcheck?ip=24.48.5.2`, fresh())
    const refusedAt = await pollUntil(
      () =>
        get(`${app.url}/api/health?probe=live`, fresh()).then(
          () => null,
          (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? Date.now() - t0 : null),
        ),
      (ms) => ms !== null,
      DELAY_MS + 2000,
      20,
    )
    const last = await lastOne
    const code = await app.exited
    report('sigterm with a readiness delay', {
      delayMs: DELAY_MS,
      readyFailedMs,
      refusedAtMs: refusedAt,
      lastInFlight: last.status,
      exitCode: code,
      exitMs: Date.now() - t0,
    })
    expect(readyFailedMs).toBeLessThan(1000)
    expect(refusedAt).not.toBeNull()
    expect(refusedAt!).toBeGreaterThanOrEqual(DELAY_MS - 50)
    expect(last.status).toBe(200)
    expect(code).toBe(0)
    expect(app.logs()).toMatch(/"msg":"requests drained","completed":1,"cut":0/)
  })
})

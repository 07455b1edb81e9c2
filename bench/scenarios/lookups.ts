import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerResponse } from 'node:http'
import IORedis from 'ioredis'
import { startApp, type RunningApp } from '../../test-support/app'
import { fixture, fixtureJson, sendJson, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../../test-support/fake-upstream'
import { medianMs, type BenchRow, type Scenario } from '../lib'

// Cold vs cached latency of /api/deviceosversion/{model} and /api/ipcheck, and single-flight:
// 100 concurrent identical cold requests, counting the calls the fake upstream received. The fake
// upstreams add UPSTREAM_DELAY_MS to every answer to stand in for a network round trip.
// Runs with the in-memory cache and, when BENCH_REDIS_URL is set (a database it may FLUSHDB), with Redis.

const UPSTREAM_DELAY_MS = 50
const COLD_APPS = 3
const RUNS = 30
const gdmf = fixture('apple-gdmf/pmv-2026-08-22.json')
const ipSample = fixtureJson<Record<string, unknown>>('ip-api/json-all-fields-24.48.0.1.json')

async function feeds(req: ReceivedRequest, res: ServerResponse) {
  await sleep(UPSTREAM_DELAY_MS)
  if (req.path === '/v2/pmv') return sendJson(res, 200, gdmf)
  if (req.path.startsWith('/json/')) {
    // A generous X-Rl so the client-side budget never interferes with the measurement.
    return sendJson(res, 200, { ...ipSample, query: decodeURIComponent(req.path.slice(6)) }, { 'X-Rl': '45', 'X-Ttl': '60' })
  }
  sendJson(res, 404, {})
}

const ok = async (url: string) => {
  const res = await fetch(url)
  await res.arrayBuffer()
  if (res.status >= 500) throw new Error(`${url} → ${res.status}`)
  return res.status
}

async function flush(redisUrl: string | undefined) {
  if (!redisUrl) return
  const r = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 })
  await r.connect()
  await r.flushdb()
  await r.quit()
}

async function withApp<T>(upstream: FakeUpstream, redisUrl: string | undefined, fn: (app: RunningApp) => Promise<T>): Promise<T> {
  await flush(redisUrl)
  const app = await startApp({
    APPLE_GDMF_URL: `${upstream.url}/v2/pmv`,
    IP_API_URL: upstream.url,
    REDIS_URL: redisUrl,
    RATE_LIMIT_MAX: '1000000',
  })
  try {
    // Load the route modules first, with answers that never reach an upstream.
    await ok(`${app.url}/api/deviceosversion/Pixel8,1`)
    await ok(`${app.url}/api/ipcheck?ip=10.0.0.1`)
    return await fn(app)
  } finally {
    await app.stop()
  }
}

async function measure(store: 'memory' | 'redis', redisUrl: string | undefined): Promise<BenchRow[]> {
  const upstream = await startFakeUpstream(feeds)
  const group = `lookups (${store})`
  const calls = (path: string) => upstream.requests.filter((r) => r.path === path).length
  try {
    // Device OS: the first request of a fresh server downloads and parses the feed.
    const coldDevice: number[] = []
    let cachedDevice = 0
    for (let i = 0; i < COLD_APPS; i++) {
      await withApp(upstream, redisUrl, async (app) => {
        coldDevice.push(await medianMs(1, () => ok(`${app.url}/api/deviceosversion/iPhone15,2`)))
        if (i === 0) cachedDevice = await medianMs(RUNS, () => ok(`${app.url}/api/deviceosversion/iPhone15,2`))
      })
    }
    coldDevice.sort((a, b) => a - b)

    // Single-flight and IP lookups on one more fresh server.
    const flight = await withApp(upstream, redisUrl, async (app) => {
      const gdmfBefore = calls('/v2/pmv')
      await Promise.all(Array.from({ length: 100 }, () => ok(`${app.url}/api/deviceosversion/iPhone14,2`)))
      const deviceCalls = calls('/v2/pmv') - gdmfBefore

      await Promise.all(Array.from({ length: 100 }, () => ok(`${app.url}/api/ipcheck?ip=24.48.7.7`)))
      const ipCalls = calls('/json/24.48.7.7')

      // Every address is new, so each of these is a cold lookup; the budget allows 45 a minute.
      let n = 0
      const coldIp = await medianMs(20, () => ok(`${app.url}/api/ipcheck?ip=24.48.8.${n++}`))
      const cachedIp = await medianMs(RUNS, () => ok(`${app.url}/api/ipcheck?ip=24.48.8.0`))
      return { deviceCalls, ipCalls, coldIp, cachedIp }
    })

    return [
      {
        group,
        name: 'deviceosversion cold (feed download + parse)',
        value: coldDevice[Math.floor(coldDevice.length / 2)],
        unit: 'ms',
        note: `median of ${COLD_APPS} fresh servers; upstream delay ${UPSTREAM_DELAY_MS} ms`,
      },
      { group, name: 'deviceosversion cached', value: cachedDevice, unit: 'ms', baseline: coldDevice[Math.floor(coldDevice.length / 2)], baselineName: 'cold' },
      {
        group,
        name: 'ipcheck cold (ip-api call)',
        value: flight.coldIp,
        unit: 'ms',
        note: `median of 20 new addresses; upstream delay ${UPSTREAM_DELAY_MS} ms`,
      },
      { group, name: 'ipcheck cached', value: flight.cachedIp, unit: 'ms', baseline: flight.coldIp, baselineName: 'cold' },
      { group, name: 'gdmf calls for 100 concurrent cold requests', value: flight.deviceCalls, unit: 'calls', baseline: 100, baselineName: 'one per request' },
      { group, name: 'ip-api calls for 100 concurrent cold requests', value: flight.ipCalls, unit: 'calls', baseline: 100, baselineName: 'one per request' },
    ]
  } finally {
    await upstream.close()
  }
}

const scenario: Scenario = {
  name: 'lookups',
  async run() {
    const rows = await measure('memory', undefined)
    const redisUrl = process.env.BENCH_REDIS_URL
    if (redisUrl) rows.push(...(await measure('redis', redisUrl)))
    return rows
  },
}

export default scenario

import type { ServerResponse } from 'node:http'
import IORedis from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { fixture, sendJson, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../../test-support/fake-upstream'
import { loadContract } from '../../test-support/openapi'

// /api/deviceosversion through the built server, against one loopback server replaying the
// recorded gdmf feed (/v2/pmv) and SOFA feeds (/sofa/v2/<os>_data_feed.json). Plain HTTP here;
// the Apple-root TLS path is covered by tests/unit/deviceos-tls.test.ts.

const TIMEOUT_MS = 1500
const MAX_BYTES = 1024 * 1024

type Mode = 'ok' | 'timeout' | '500' | 'malformed' | 'oversize' | 'slow'
let gdmfMode: Mode = 'ok'

function serveGdmf(res: ServerResponse) {
  switch (gdmfMode) {
    case 'ok':
      return sendJson(res, 200, fixture('apple-gdmf/pmv-2026-08-22.json'))
    case 'timeout':
      return
    case '500':
      return sendJson(res, 500, { error: 'boom' })
    case 'malformed':
      return sendJson(res, 200, '{"PublicAssetSets": {"iOS": [')
    case 'oversize':
      return sendJson(res, 200, { PublicAssetSets: {}, padding: 'x'.repeat(MAX_BYTES + 1) })
    case 'slow': {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"PublicAssetSets":')
      const timer = setInterval(() => res.write(' '), 200)
      res.on('close', () => clearInterval(timer))
    }
  }
}

function feeds(req: ReceivedRequest, res: ServerResponse) {
  if (req.path === '/v2/pmv') return serveGdmf(res)
  const sofa = /^\/sofa\/v2\/(macos|watchos|tvos)_data_feed\.json$/.exec(req.path)
  if (sofa) return sendJson(res, 200, fixture(`sofa/v2-${sofa[1]}_data_feed-2026-08-22.json`))
  sendJson(res, 404, { error: 'no such feed' })
}

let upstream: FakeUpstream
let contract: Awaited<ReturnType<typeof loadContract>>

const gdmfCalls = () => upstream.requests.filter((r) => r.path === '/v2/pmv').length

async function get(app: RunningApp, model: string, query = '') {
  const started = Date.now()
  const res = await fetch(`${app.url}/api/deviceosversion/${model}${query}`)
  const body = await res.json()
  contract.expectValid('GET', `/api/deviceosversion/${model}`, res.status, body)
  return { status: res.status, body, ms: Date.now() - started }
}

const env = () => ({
  APPLE_GDMF_URL: `${upstream.url}/v2/pmv`,
  SOFA_FEED_URL: `${upstream.url}/sofa/v2`,
  UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  UPSTREAM_MAX_BYTES: String(MAX_BYTES),
})

beforeAll(async () => {
  upstream = await startFakeUpstream(feeds)
})
afterAll(() => upstream?.close())

describe('GET /api/deviceosversion/{deviceModel}', () => {
  let app: RunningApp
  beforeAll(async () => {
    gdmfMode = 'ok'
    app = await startApp(env())
    contract = await loadContract(app.url)
  })
  afterAll(() => app?.stop())

  it('100 concurrent cold requests share one feed download', async () => {
    const before = gdmfCalls()
    const all = await Promise.all(Array.from({ length: 100 }, () => get(app, 'iPhone15,2')))
    expect(all.every((r) => r.status === 200)).toBe(true)
    expect(gdmfCalls() - before).toBe(1)
  })

  it('returns the record with the highest version for an iPhone', async () => {
    const r = await get(app, 'iPhone15,2')
    expect(r.body).toMatchObject({
      deviceModel: 'iPhone15,2',
      os: 'iOS',
      latestVersion: '26.6.1',
      updatePosted: '2026-08-17T00:00:00Z',
      updateRequired: null,
      errorMessage: null,
      build: '23G83',
    })
    expect(r.body.latestPerMajor.map((x: { version: string }) => x.version)).toEqual(['26.6.1', '18.7.8'])
  })

  it('compares currentOSVersion numerically; an empty value counts as absent', async () => {
    expect((await get(app, 'iPhone11,2', '?currentOSVersion=18.7.8')).body).toMatchObject({ latestVersion: '18.7.10', updateRequired: true })
    expect((await get(app, 'iPhone11,2', '?currentOSVersion=18.7.10')).body.updateRequired).toBe(false)
    expect((await get(app, 'iPhone11,2', '?currentOSVersion=')).body.updateRequired).toBeNull()
  })

  it('finds Macs through board IDs and watchOS/tvOS with SOFA', async () => {
    expect((await get(app, 'Mac14,2')).body).toMatchObject({ os: 'macOS', latestVersion: '26.6.2' })
    expect((await get(app, 'MacBookPro15,2')).body).toMatchObject({ os: 'macOS', latestVersion: '15.7.9' })
    expect((await get(app, 'Watch7,1')).body).toMatchObject({ os: 'watchOS', latestVersion: '26.6' })
    expect((await get(app, 'AppleTV14,1')).body).toMatchObject({ os: 'tvOS', latestVersion: '26.6' })
    expect((await get(app, 'iPhone15%2C2')).body.deviceModel).toBe('iPhone15,2')
  })

  it('keeps the feeds cached: no further downloads after the first', async () => {
    expect(gdmfCalls()).toBe(1)
    for (const os of ['macos', 'watchos', 'tvos']) expect(upstream.requests.filter((r) => r.path === `/sofa/v2/${os}_data_feed.json`)).toHaveLength(1)
  })

  it.each([
    ['iPhone15', '', 400],
    ['iPhone 15,2', '', 400],
    ['15,2', '', 400],
    ['iPhone15,2', '?currentOSVersion=latest', 400],
    ['Pixel8,1', '', 404],
    ['iPhone99,9', '', 404],
  ])('%s%s → %i {status, message}', async (model, query, status) => {
    const r = await get(app, encodeURIComponent(model), query)
    expect(r.status).toBe(status)
    expect(r.body.status).toBe('error')
    expect(typeof r.body.message).toBe('string')
  })
})

describe('feed failures', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp(env())
    contract = await loadContract(app.url)
  })
  afterAll(() => app?.stop())

  it.each([
    ['timeout', 504],
    ['500', 502],
    ['malformed', 502],
    ['oversize', 502],
    ['slow', 504],
  ] as const)('gdmf %s with nothing cached → %i {status, message} within the time budget', async (mode, status) => {
    gdmfMode = mode
    const r = await get(app, 'iPhone15,2')
    expect(r.status).toBe(status)
    expect(r.body.status).toBe('error')
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 4000)
  })

  it('recovers once the feed is back, and the server stayed up', async () => {
    gdmfMode = 'ok'
    expect((await get(app, 'iPhone15,2')).status).toBe(200)
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200)
  })
})

// Redis database 7 is reserved for this suite.
describe('with a Redis store', () => {
  const REDIS_URL = 'redis://127.0.0.1:6379/7'

  it('a second server instance reuses the feeds the first one cached', async () => {
    const redis = new IORedis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    await redis.flushdb()
    await redis.quit()
    gdmfMode = 'ok'
    const before = gdmfCalls()
    for (let i = 0; i < 2; i++) {
      const app = await startApp({ ...env(), REDIS_URL })
      try {
        contract = await loadContract(app.url)
        const r = await get(app, 'Mac14,2')
        expect([r.status, r.body.latestVersion]).toEqual([200, '26.6.2'])
      } finally {
        await app.stop()
      }
    }
    expect(gdmfCalls() - before).toBe(1)
  })
})

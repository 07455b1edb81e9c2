import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { fixture, sendJson, startFakeUpstream } from '../../test-support/fake-upstream'

// The feed adapters against a loopback server replaying the recorded feeds: parsing, caching and
// the last-good copy. Config is read at import, so the server starts first.

let failing = false
const upstream = await startFakeUpstream((req, res) => {
  if (failing) return sendJson(res, 500, { error: 'down' })
  if (req.path === '/v2/pmv') return sendJson(res, 200, fixture('apple-gdmf/pmv-2026-08-22.json'))
  if (req.path === '/sofa/v2/macos_data_feed.json') return sendJson(res, 200, fixture('sofa/v2-macos_data_feed-2026-08-22.json'))
  sendJson(res, 404, {})
})
process.env.APPLE_GDMF_URL = `${upstream.url}/v2/pmv`
process.env.SOFA_FEED_URL = `${upstream.url}/sofa/v2`
process.env.UPSTREAM_RETRIES = '0'
const { loadGdmfReleases, loadSofa } = await import('@/lib/deviceos/upstream')
const { clearMemoryCache } = await import('@/lib/upstream/cache')

afterAll(() => upstream.close())
afterEach(() => {
  vi.useRealTimers()
  failing = false
  clearMemoryCache()
})

const HOUR = 3600_000

describe('Apple feed adapters', () => {
  it('parse the recorded feeds and cache them', async () => {
    const releases = await loadGdmfReleases()
    expect(releases.some((r) => r.version === '26.6.1' && r.devices.includes('iPhone15,2'))).toBe(true)
    const mac = await loadSofa('macos')
    expect(mac.mac?.boards['Mac14,2']).toEqual(['J413AP'])
    const before = upstream.requests.length
    await loadGdmfReleases()
    await loadSofa('macos')
    expect(upstream.requests.length).toBe(before)
  })

  it('serve the last good copy for a week when a reload fails, then give up', async () => {
    const start = Date.now()
    const good = await loadGdmfReleases()
    failing = true
    vi.setSystemTime(start + 2 * HOUR)
    const before = upstream.requests.length
    expect(await loadGdmfReleases()).toEqual(good)
    expect(upstream.requests.length).toBe(before + 1) // it did try
    vi.setSystemTime(start + 8 * 24 * HOUR)
    await expect(loadGdmfReleases()).rejects.toMatchObject({ status: 502 })
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { loadContract } from '../../test-support/openapi'

// Every operation of the platform group through real HTTP, each response validated against the
// OpenAPI document the server publishes.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

let app: RunningApp
let contract: Awaited<ReturnType<typeof loadContract>>
beforeAll(async () => {
  app = await startApp({ SUPPORT_EMAIL: 'help@platform.test', SUPPORT_URL: 'https://platform.test/help', PUBLIC_BASE_URL: 'https://api.platform.test' })
  contract = await loadContract(app.url)
})
afterAll(() => app.stop())

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  contract.expectValid(method, path, res.status, json)
  return { status: res.status, json, headers: res.headers }
}

describe('OpenAPI document', () => {
  it('describes version 1.1.0 with servers, contact and unique operationIds', () => {
    const doc = contract.definition
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info.version).toBe('1.1.0')
    expect(doc.info.contact).toMatchObject({ email: 'help@platform.test', url: 'https://platform.test/help' })
    expect(doc.servers[0].url).toBe('https://api.platform.test/api')
    const ids = Object.values(doc.paths).flatMap((p) => Object.values(p as Record<string, { operationId: string }>).map((o) => o.operationId))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('is also reachable at /openapi.json and /docs by redirect', async () => {
    const r = await fetch(`${app.url}/openapi.json`, { redirect: 'manual' })
    expect([307, 308]).toContain(r.status)
    expect(r.headers.get('location')).toMatch(/\/api\/openapi\.json$/)
    const d = await fetch(`${app.url}/docs`, { redirect: 'manual' })
    expect(d.headers.get('location')).toMatch(/\/api\/docs$/)
    for (const res of [r, d]) expect(res.headers.get('x-request-id')).toMatch(UUID)
  })

  it('gives pages outside /api a request id too', async () => {
    const res = await fetch(`${app.url}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toMatch(UUID)
  })
})

describe('health', () => {
  it('reports ok with the version and the store check', async () => {
    const { status, json } = await call('GET', '/api/health')
    expect(status).toBe(200)
    expect(json).toMatchObject({ status: 'ok', version: '1.1.0', checks: { rateLimitStore: { status: 'ok' } } })
  })
})

describe('generators', () => {
  it.each([
    ['/api/generate/guid', 200],
    ['/api/generate/guid?count=500&version=7&format=N&uppercase=true', 200],
    ['/api/generate/guid?count=0', 400],
    ['/api/generate/guid?version=9', 400],
    ['/api/generate/timestamp/ticks', 200],
    ['/api/generate/timestamp/ticks?dateTime=2026-01-01T00:00:00Z', 200],
    ['/api/generate/timestamp/ticks?ticks=639028224000000000', 200],
    ['/api/generate/timestamp/ticks?ticks=abc', 400],
  ])('GET %s → %i', async (path, expected) => {
    const { status, json } = await call('GET', path)
    expect(status).toBe(expected)
    if (expected === 400) expect(json.error.message).toMatch(/^(count|version|ticks)/)
  })

  it('returns 500 upper-case N-format v7 GUIDs', async () => {
    const { json } = await call('GET', '/api/generate/guid?count=500&version=7&format=N&uppercase=true')
    expect(json.guids).toHaveLength(500)
    expect(json.guids.every((g: string) => /^[0-9A-F]{12}7[0-9A-F]{19}$/.test(g))).toBe(true)
  })
})

describe('directory ID conversion', () => {
  it('converts both ways and carries the support object', async () => {
    const { json } = await call('GET', '/api/directory/convertid/e06e3596-82c0-4f31-ac5a-439a308e3dc2')
    expect(json).toEqual({
      originalId: 'e06e3596-82c0-4f31-ac5a-439a308e3dc2',
      returnId: 'S-1-12-1-3765319062-1328644800-2588105388-3258814000',
      convertDirection: 'objectIdToSid',
      support: { url: 'https://platform.test/help', email: 'help@platform.test' },
    })
    const back = await call('GET', '/api/directory/convertid/S-1-12-1-4163729839-1217663608-249102764-4166813488')
    expect(back.json.returnId).toBe('f82d79af-1278-4894-ac01-d90e30875cf8')
  })

  it('answers an invalid id with a 400 naming the problem', async () => {
    const { status, json } = await call('GET', '/api/directory/convertid/S-1-12-1-1-2-3')
    expect(status).toBe(400)
    expect(json.error.message).toMatch(/exactly four numbers/)
  })

  it('converts a batch with per-item errors', async () => {
    const { status, json } = await call('POST', '/api/directory/convertid', { ids: ['e06e3596-82c0-4f31-ac5a-439a308e3dc2', 'nope'] })
    expect(status).toBe(200)
    expect(json.results[0].returnId).toBe('S-1-12-1-3765319062-1328644800-2588105388-3258814000')
    expect(json.results[1]).toMatchObject({ originalId: 'nope', returnId: null, error: expect.stringMatching(/not a GUID/) })
  })

  it('rejects batches over 100 and bodies of the wrong shape', async () => {
    expect((await call('POST', '/api/directory/convertid', { ids: Array(101).fill('x') })).status).toBe(400)
    expect((await call('POST', '/api/directory/convertid', { id: 'x' })).status).toBe(400)
  })
})

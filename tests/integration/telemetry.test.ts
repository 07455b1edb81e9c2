import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { startFakeDoh } from '../../test-support/fake-doh'
import { fixtureJson, sendJson, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../test-support/otlp-receiver'

// OpenTelemetry through the built server: the app exports to a loopback OTLP/HTTP JSON receiver
// with short batch and metric intervals, serves a REST request, an upstream-backed request (a
// loopback ip-api.com) and an MCP tools/call, and the receiver is polled until their spans and
// duration metrics arrive.

const SERVER = 2
const CLIENT = 3
const sample = fixtureJson<Record<string, unknown>>('ip-api/json-all-fields-24.48.0.1.json')

let app: RunningApp
let receiver: OtlpReceiver
let upstream: FakeUpstream
let doh: Awaited<ReturnType<typeof startFakeDoh>>

beforeAll(async () => {
  receiver = await startOtlpReceiver()
  upstream = await startFakeUpstream((req, res) => sendJson(res, 200, { ...sample, query: '24.48.0.1' }, { 'X-Rl': '40', 'X-Ttl': '50' }))
  doh = await startFakeDoh({ records: {} })
  app = await startApp({
    IP_API_URL: upstream.url,
    DOH_URL: doh.url,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'utility-api-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '300',
    // Small enough for the last test to reach a 429 (the requests before it count too).
    RATE_LIMIT_MAX: '8',
  })
})

afterAll(async () => {
  await app?.stop()
  await upstream?.close()
  await doh?.close()
  await receiver?.close()
})

const ids = {
  rest: '0b5a3c1e-8f1a-4d2b-9c3e-000000000001',
  upstream: '0b5a3c1e-8f1a-4d2b-9c3e-000000000002',
  mcp: '0b5a3c1e-8f1a-4d2b-9c3e-000000000003',
}

const spansOf = (requestId: string) => receiver.spans.filter((s) => s.attributes['utility_api.request_id'] === requestId)
const serverSpan = (requestId: string) => spansOf(requestId).find((s) => s.kind === SERVER && s.attributes['http.request.method'] !== undefined)
const poll = <T>(fn: () => T) => vi.waitFor(fn, { timeout: 15_000, interval: 100 })

describe('OpenTelemetry export', () => {
  it('exports a server span per request with the route template, status and request id', async () => {
    const res = await fetch(`${app.url}/api/generate/guid`, { headers: { 'x-request-id': ids.rest } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe(ids.rest)
    const span = await poll(() => {
      const s = serverSpan(ids.rest)
      expect(s).toBeDefined()
      return s as ReceivedSpan
    })
    expect(span.name).toBe('GET /api/generate/guid')
    expect(span.attributes).toMatchObject({ 'http.route': '/api/generate/guid', 'http.response.status_code': 200, 'url.path': '/api/generate/guid' })
    expect(span.resource['service.name']).toBe('utility-api-test')
    // Next's own spans of the request are children in the same trace and carry the id too.
    expect(spansOf(ids.rest).filter((s) => s.traceId === span.traceId && s.parentSpanId === span.spanId).length).toBeGreaterThan(0)
  })

  it('exports a client span for the upstream call, without query values, under the request', async () => {
    const res = await fetch(`${app.url}/api/ipcheck?ip=24.48.0.1`, { headers: { 'x-request-id': ids.upstream } })
    expect(res.status).toBe(200)
    expect(upstream.requests.length).toBeGreaterThan(0)
    const { server, client } = await poll(() => {
      const server = serverSpan(ids.upstream)
      const client = spansOf(ids.upstream).find((s) => s.kind === CLIENT && s.attributes['utility_api.upstream'] === 'ip-api.com')
      expect(server).toBeDefined()
      expect(client).toBeDefined()
      return { server: server!, client: client! }
    })
    expect(server.attributes['http.route']).toBe('/api/ipcheck')
    expect(client.traceId).toBe(server.traceId)
    expect(client.attributes).toMatchObject({
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(upstream.url).port),
      'http.response.status_code': 200,
    })
    const url = new URL(String(client.attributes['url.full']))
    expect(url.pathname).toBe('/json/24.48.0.1')
    // ip-api's `fields` list is sent, but a span shows no query value.
    expect(upstream.requests[0].query.get('fields')).toBeTruthy()
    expect(url.searchParams.get('fields')).toBe('REDACTED')
  })

  it('exports an MCP span for tools/call with the semantic conventions, and database spans', async () => {
    const res = await fetch(`${app.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': ids.mcp },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'check_api_health', arguments: {} } }),
    })
    expect(res.status).toBe(200)
    const mcp = await poll(() => {
      const s = spansOf(ids.mcp).find((s) => s.attributes['mcp.method.name'] === 'tools/call')
      expect(s).toBeDefined()
      return s!
    })
    expect(mcp.name).toBe('tools/call check_api_health')
    expect(mcp.kind).toBe(SERVER)
    expect(mcp.attributes).toMatchObject({ 'gen_ai.tool.name': 'check_api_health', 'jsonrpc.request.id': '7' })
    expect(mcp.attributes['mcp.session.id']).toBeUndefined()
    expect(mcp.attributes['error.type']).toBeUndefined()
    // The server span ends after the answer is sent, so it may come in a later export.
    await poll(() => expect(serverSpan(ids.mcp)?.attributes['http.route']).toBe('/api/mcp'))
    // The health check reads the database; statements are named by their operation, without text.
    const db = await poll(() => {
      const s = receiver.spans.find((s) => s.attributes['db.system.name'] === 'postgresql')
      expect(s).toBeDefined()
      return s!
    })
    expect(db.kind).toBe(CLIENT)
    expect(db.attributes['db.operation.name']).toMatch(/^[A-Z]+$/)
    expect(Object.keys(db.attributes).filter((k) => k.startsWith('db.query'))).toEqual([])
  })

  it('exports request, upstream, MCP and database durations as histograms in seconds', async () => {
    await poll(() => {
      const point = (metric: string, match: Record<string, unknown>) =>
        receiver.points.find((p) => p.metric === metric && p.type === 'histogram' && Object.entries(match).every(([k, v]) => p.attributes[k] === v))
      expect(
        point('http.server.request.duration', { 'http.route': '/api/ipcheck', 'http.request.method': 'GET', 'http.response.status_code': 200 }),
      ).toBeDefined()
      expect(point('http.client.request.duration', { 'server.address': '127.0.0.1', 'http.response.status_code': 200 })).toBeDefined()
      expect(point('mcp.server.operation.duration', { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'check_api_health' })).toBeDefined()
      expect(point('db.client.operation.duration', { 'db.system.name': 'postgresql' })).toBeDefined()
      expect(receiver.points.find((p) => p.metric === 'http.server.request.duration')?.unit).toBe('s')
      expect(receiver.points.some((p) => p.metric === 'utility_api.request_log.lag' && p.type === 'gauge' && p.unit === 's')).toBe(true)
    })
    expect(receiver.refused).toEqual([])
  })

  it('counts rate-limit denials by policy', async () => {
    let status = 0
    for (let i = 0; i < 12 && status !== 429; i++) {
      const res = await fetch(`${app.url}/api/generate/guid`)
      await res.body?.cancel()
      status = res.status
    }
    expect(status).toBe(429)
    await poll(() =>
      expect(
        receiver.points.some(
          (p) => p.metric === 'utility_api.rate_limit.denials' && p.attributes['utility_api.rate_limit.policy'] === 'default' && p.value >= 1,
        ),
      ).toBe(true),
    )
  })
})

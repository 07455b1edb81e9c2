import fc from 'fast-check'
import OpenAPIBackend from 'openapi-backend'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { report } from '../../test-support/fault'

// A schema-driven fuzz of every public operation, generated from /api/openapi.json with fast-check
// (a fixed seed, so a run can be repeated): path parameters, query strings, bodies, content types
// and methods, valid and hostile. Every answer must be declared for its operation, match the
// declared schema, carry X-Request-Id and never be a 500. Upstreams are one loopback server that
// answers 503 to everything, so upstream paths fail fast and in their documented way.

const SEED = 1307
const RUNS_PER_OPERATION = 110
const CONCURRENCY = 8

type JsonSchema = {
  type?: string | string[]
  enum?: unknown[]
  minimum?: number
  maximum?: number
  items?: JsonSchema
  properties?: Record<string, JsonSchema>
  required?: string[]
  pattern?: string
}
interface Parameter {
  name: string
  in: 'query' | 'path' | 'header'
  required?: boolean
  schema: JsonSchema
}
interface OperationDoc {
  operationId: string
  parameters?: Parameter[]
  requestBody?: { content: Record<string, { schema: JsonSchema }> }
  responses: Record<string, unknown>
  security?: unknown[]
}
interface Case {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
  operationId: string
  path: string
}
type Paths = Record<string, Record<string, OperationDoc>>

const hostile = fc.constantFrom('%FF', '%E0%A4%A', '..', '%2F', '%00', "'; DROP TABLE x;--", '<script>', '{{7*7}}', 'a'.repeat(600), '../../etc/passwd', '%')

/** A value for a JSON-schema'd parameter: mostly plausible, sometimes hostile. */
function scalar(schema: JsonSchema = {}): fc.Arbitrary<string> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  const plausible = schema.enum
    ? fc.constantFrom(...schema.enum.map(String))
    : type === 'integer' || type === 'number'
      ? fc.integer({ min: Math.max(schema.minimum ?? -5, -1e9), max: Math.min(Math.max(schema.maximum ?? 2000, schema.minimum ?? 0), 1e9) }).map(String)
      : type === 'boolean'
        ? fc.constantFrom('true', 'false', '1', '0', 'yes')
        : fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.constantFrom('example.com', 'contoso.com', '24.48.0.1', '2001:db8::1', 'alice.bsky.social', 'did:plc:abc', 'iPhone15,2', 'privacy'),
          )
  return fc.oneof(
    { weight: 5, arbitrary: plausible },
    { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
    { weight: 1, arbitrary: hostile },
  )
}

/** A JSON body: shaped by the schema, or any JSON, or not JSON at all. */
function body(schema: JsonSchema | undefined): fc.Arbitrary<string> {
  const shaped = (s: JsonSchema | undefined, depth: number): fc.Arbitrary<unknown> => {
    if (!s || depth > 3) return fc.jsonValue({ maxDepth: 2 })
    if (s.type === 'object' && s.properties)
      return fc.record(Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, shaped(v, depth + 1)])), { requiredKeys: [] })
    if (s.type === 'array') return fc.array(shaped(s.items, depth + 1), { maxLength: 120 })
    return fc.oneof(scalar(s), fc.jsonValue({ maxDepth: 1 }))
  }
  return fc.oneof(
    { weight: 6, arbitrary: shaped(schema, 0).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.integer({ min: 33, max: 2000 }).map((n) => '['.repeat(n)) },
  )
}

function casesFor(path: string, method: string, op: OperationDoc): fc.Arbitrary<Case> {
  const params = op.parameters ?? []
  const pathParams = params.filter((p) => p.in === 'path')
  const query = params.filter((p) => p.in === 'query')
  const jsonSchema = op.requestBody?.content['application/json']?.schema
  return fc
    .record({
      pathValues: fc.tuple(...pathParams.map((p) => fc.tuple(scalar(p.schema), fc.boolean()))),
      queryValues: fc.tuple(...query.map((p) => fc.option(scalar(p.schema), { nil: undefined }))),
      extra: fc.option(fc.tuple(fc.constantFrom('x', 'debug', 'callback', '__proto__'), fc.string({ maxLength: 10 })), { nil: undefined }),
      // fast-check's option: nil one time in `freq`.
      body: op.requestBody
        ? fc.option(body(jsonSchema), { nil: undefined, freq: 8 })
        : fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.string({ maxLength: 50 }) }),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
      otherMethod: fc.oneof(
        { weight: 11, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', method === 'GET' ? 'POST' : 'GET') },
      ),
    })
    .map(({ pathValues, queryValues, extra, body: payload, contentType, otherMethod }) => {
      // A raw value goes in as typed (percent-encoding errors included); otherwise it is encoded.
      let url = path.replace(/\{[^}]+\}/g, () => {
        const [value, raw] = pathValues.shift()!
        // Dot segments never reach the server: the client resolves them (RFC 3986 §5.2.4).
        if (value === '.' || value === '..') return 'x'
        return raw ? value.replace(/[/?#\s]/g, '_') || 'x' : encodeURIComponent(value) || 'x'
      })
      const search = new URLSearchParams()
      query.forEach((p, i) => queryValues[i] !== undefined && search.append(p.name, queryValues[i]!))
      if (extra) search.append(extra[0], extra[1])
      if (search.size) url += `?${search}`
      const finalMethod = otherMethod ?? method
      const headers: Record<string, string> = {}
      const sendsBody = payload !== undefined && finalMethod !== 'GET'
      if (sendsBody && contentType) headers['content-type'] = contentType
      return { method: finalMethod, url: `/api${url}`, headers, body: sendsBody ? payload : undefined, operationId: op.operationId, path }
    })
}

let app: RunningApp
let upstream: FakeUpstream
beforeAll(async () => {
  upstream = await startFakeUpstream((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' })
    res.end('{"error":"unavailable"}')
  })
  const u = upstream.url
  app = await startApp({
    RATE_LIMIT_MAX: '1000000',
    UPSTREAM_RETRIES: '0',
    UPSTREAM_TIMEOUT_MS: '2000',
    ...Object.fromEntries(
      [
        'IP_API_URL',
        'DOH_URL',
        'APPLE_GDMF_URL',
        'SOFA_FEED_URL',
        'MS_LOGIN_URL',
        'MS_GRAPH_URL',
        'PDS_URL',
        'PLC_URL',
        'BETTERSTACK_API_URL',
        'GHOST_URL',
      ].map((k) => [k, u]),
    ),
    MTA_STS_URL_TEMPLATE: `${u}/mta-sts/{domain}`,
    GHOST_CONTENT_API_KEY: 'fuzzcontentkey0000000000',
    BETTERSTACK_API_TOKEN: 'fuzz',
    BETTERSTACK_MONITOR_ID: '1',
  })
})
afterAll(async () => {
  await app.stop()
  await upstream.close()
})

describe('schema-driven fuzz', () => {
  it('answers ≥ 3,000 generated requests with declared statuses, valid bodies, request ids and no 500', async () => {
    const definition = await (await fetch(`${app.url}/api/openapi.json`)).json()
    const api = new OpenAPIBackend({ definition, quick: true, strict: false, validate: true })
    await api.init()
    const cases: Case[] = []
    for (const [path, item] of Object.entries(definition.paths as Paths)) {
      if (path === '/mcp') continue // JSON-RPC: covered by the MCP tests and the conformance suite
      for (const [method, op] of Object.entries(item)) {
        if ((op as { 'x-internal-operation'?: boolean })['x-internal-operation']) continue
        cases.push(...fc.sample(casesFor(path, method.toUpperCase(), op), { seed: SEED, numRuns: RUNS_PER_OPERATION }))
      }
    }
    const problems: string[] = []
    const statuses = new Map<number, number>()
    let next = 0
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const c = cases[next++]
          const res = await fetch(`${app.url}${c.url}`, { method: c.method, headers: c.headers, body: c.body, redirect: 'manual' })
          const text = await res.text()
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          const where = `${c.method} ${c.url.slice(0, 120)} → ${res.status}`
          if (res.status === 500) problems.push(`${where}: 500 ${text.slice(0, 200)}`)
          if (!res.headers.get('x-request-id')) problems.push(`${where}: no X-Request-Id`)
          // The operation that answers this method at this path; for a method the path lacks (405), the generated one.
          const answering = (definition.paths as Paths)[c.path][c.method.toLowerCase()]?.operationId ?? c.operationId
          const operation = api.getOperation(answering)!
          if (!(String(res.status) in (operation.responses ?? {}))) {
            problems.push(`${where}: status not declared`)
            continue
          }
          if (!text || !res.headers.get('content-type')?.includes('application/json')) continue
          const result = api.validateResponse(JSON.parse(text), operation, res.status)
          if (result.errors?.length) problems.push(`${where}: body does not match its schema: ${JSON.stringify(result.errors).slice(0, 300)}`)
        }
      }),
    )
    report('schema-driven fuzz', {
      requests: cases.length,
      operations: new Set(cases.map((c) => c.operationId)).size,
      statuses: Object.fromEntries([...statuses].sort()),
      problems: problems.length,
    })
    expect(problems.slice(0, 20)).toEqual([])
    expect(cases.length).toBeGreaterThanOrEqual(3000)
    expect(statuses.get(500) ?? 0).toBe(0)
  })
})

import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import * as dnsPacket from 'dns-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { loadZones } from '../../test-support/dns-zones'
import { answerQuery } from '../../test-support/fake-doh'
import { blobRef, createFakePds, postRecord, type FakeAccount } from '../../test-support/fake-pds'
import { fixture, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { tools as registry } from '@/lib/mcp/tools'

// /api/mcp at protocol revision 2026-07-28, next to the 2025 era it keeps serving. Each test quotes
// the sentence of the specification it checks (https://github.com/modelcontextprotocol/modelcontextprotocol,
// docs/specification/2026-07-28/: changelog.mdx, basic/transports/streamable-http.mdx,
// basic/versioning.mdx, server/discover.mdx, server/tools.mdx). The PDS behind the tools is the
// loopback fake holding 10,000 repositories, of which the first 20 are active (the heatmap and blob
// tools read active accounts only, so their calls stay quick; the repository list is all 10,000).

const MODERN = '2026-07-28'
const REPOS = 10_000
const ACTIVE = 20
// Every tool of the registry, sorted by name as tools/list lists them.
const TOOL_NAMES = registry.map((t) => t.name).sort()
const YEAR = new Date().getUTCFullYear()
const YEAR_START = Date.UTC(YEAR, 0, 1)
const B32 = 'abcdefghijklmnopqrstuvwxyz234567'
const didOf = (i: number) =>
  `did:plc:${[...i.toString(32)]
    .map((c) => B32[parseInt(c, 32)])
    .join('')
    .padStart(24, 'a')}`

const accounts: FakeAccount[] = Array.from({ length: REPOS }, (_, i) =>
  i < ACTIVE
    ? {
        did: didOf(i),
        handle: i === 0 ? 'alice.bsky.social' : undefined,
        // One post on each of 366 days at most would be a leap year's worth; give every active account posts on many days.
        records: {
          'app.bsky.feed.post': Array.from({ length: 30 }, (_, d) => postRecord(new Date(YEAR_START + (i * 30 + d) * 86_400_000 * 0.5).toISOString())),
        },
        blobs: { [`bafkrei${i}`]: 1000 + i },
      }
    : { did: didOf(i), active: false, status: 'deactivated' },
)
accounts[0].records!['app.bsky.feed.post'].push({
  ...postRecord(new Date(YEAR_START + 1000).toISOString()),
  value: {
    $type: 'app.bsky.feed.post',
    text: 'pic',
    createdAt: new Date(YEAR_START + 1000).toISOString(),
    embed: { $type: 'app.bsky.embed.images', images: [{ alt: 'a', image: blobRef('bafkrei0', 1000) }] },
  },
})

const pds = createFakePds({
  accounts,
  describeServer: fixture('atproto/describeServer-maitake.us-west.host.bsky.network.json'),
  health: fixture('atproto/health-pds-0.2.2-beta.2.json'),
})
const zone = loadZones('well-configured', 'providers', 'weak', 'platform')

let doh: FakeUpstream
let pdsHost: FakeUpstream
let app: RunningApp

beforeAll(async () => {
  doh = await startFakeUpstream(
    (req, res) => void res.writeHead(200, { 'content-type': 'application/dns-message' }).end(answerQuery(zone, dnsPacket.decode(req.body))),
  )
  pdsHost = await startFakeUpstream((req, res) => pds.handler(req, res))
  app = await startApp({
    DOH_URL: `${doh.url}/dns-query`,
    PLATFORM_DOMAINS: 'platform.example, febit.eu',
    PDS_URL: pdsHost.url,
    PLC_URL: `${pdsHost.url}/plc`,
    UPSTREAM_TIMEOUT_MS: '5000',
    PUBLIC_BASE_URL: 'https://api.mcp.test',
    RATE_LIMIT_DISABLED: 'true',
  })
})

afterAll(async () => {
  await app?.stop()
  await Promise.all([doh?.close(), pdsHost?.close()])
})

// ------------------------------------------------------------------------------ helpers

const CLIENT_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-2026-itest', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

interface Answer {
  status: number
  headers: Headers
  /** The JSON body, or for an event stream the JSON-RPC messages it carried. */
  body: any
  events: { method?: string; id?: unknown; result?: unknown; params?: unknown }[]
}

async function post(body: unknown, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${app.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  if (res.headers.get('content-type')?.includes('text/event-stream')) {
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)))
    return { status: res.status, headers: res.headers, body: events.find((e) => 'result' in e || 'error' in e), events }
  }
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, events: [] }
}

/** A well-formed 2026-07-28 request: the `_meta` envelope and the matching request headers. */
function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: { meta?: Record<string, unknown>; headers?: Record<string, string | null>; id?: number } = {},
) {
  const name = typeof params.name === 'string' ? params.name : undefined
  const headers: Record<string, string | null> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
    ...options.headers,
  }
  const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== null)) as Record<string, string>
  return post({ jsonrpc: '2.0', id: options.id ?? 1, method, params: { ...params, _meta: { ...CLIENT_META, ...options.meta } } }, sent)
}

const callModern = (name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  modern('tools/call', { name, arguments: args }, { meta })

/** The same tools/call from a 2025-11-25 client (stateless: no session, so no initialize needed first). */
const callLegacy = (name: string, args: Record<string, unknown> = {}) =>
  post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, { 'mcp-protocol-version': '2025-11-25' })

const textOf = (result: { content: { type: string; text: string }[] }) => result.content[0].text

// ------------------------------------------------------------------------------ the 2026-07-28 revision

describe('2026-07-28 on /api/mcp', () => {
  it('"Servers MUST implement server/discover" (versioning.mdx): versions, capabilities and identity', async () => {
    const r = await modern('server/discover')
    expect(r.status).toBe(200)
    expect(r.body.result.supportedVersions).toContain(MODERN)
    expect(r.body.result.capabilities.tools).toBeDefined()
    expect(r.body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'utility-api', version: '1.1.0' })
    expect(r.body.result.instructions).toContain('Read-only tools')
  })

  it('"All results now carry a required resultType field: \\"complete\\" for ordinary results" (changelog.mdx)', async () => {
    for (const r of [
      await modern('server/discover'),
      await modern('tools/list'),
      await callModern('list_policies'),
      await callModern('get_pds_repos', { limit: 0 }),
    ])
      expect(r.body.result.resultType, JSON.stringify(r.body)).toBe('complete')
  })

  it('"servers SHOULD identify themselves in each result\'s _meta (io.modelcontextprotocol/serverInfo)" (changelog.mdx)', async () => {
    for (const r of [await modern('tools/list'), await callModern('list_policies')])
      expect(r.body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'utility-api' })
  })

  it('"Require ttlMs and cacheScope fields on results returned by tools/list" (changelog.mdx): the freshness GET /api/openapi.json declares', async () => {
    const openapi = await fetch(`${app.url}/api/openapi.json`)
    await openapi.body?.cancel()
    const maxAge = Number(/max-age=(\d+)/.exec(openapi.headers.get('cache-control')!)![1])
    const { result } = (await modern('tools/list')).body
    expect({ ttlMs: result.ttlMs, cacheScope: result.cacheScope }).toEqual({
      ttlMs: maxAge * 1000,
      cacheScope: openapi.headers.get('cache-control')!.includes('public') ? 'public' : 'private',
    })
    const discover = (await modern('server/discover')).body.result
    expect([discover.ttlMs, discover.cacheScope]).toEqual([result.ttlMs, result.cacheScope])
  })

  it('"Servers SHOULD return tools from tools/list in a deterministic order" (changelog.mdx): sorted by name', async () => {
    const { result } = (await modern('tools/list')).body
    expect(result.tools.map((t: { name: string }) => t.name)).toEqual(TOOL_NAMES)
  })

  it('"List endpoints (tools/list, …) no longer vary per-connection" (changelog.mdx): the same list whoever asks', async () => {
    const a = (await modern('tools/list')).body.result
    const b = (
      await modern(
        'tools/list',
        {},
        { meta: { 'io.modelcontextprotocol/clientInfo': { name: 'other', version: '9' }, 'io.modelcontextprotocol/clientCapabilities': { roots: {} } }, id: 7 },
      )
    ).body.result
    expect(b).toEqual(a)
  })

  it('"Input and output schemas may use any JSON Schema 2020-12 keyword" (tools.mdx): tools/list carries the same schemas both eras list', async () => {
    const legacy = (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' })).body.result.tools
    const current = (await modern('tools/list')).body.result.tools
    const shape = (t: { name: string; inputSchema: { properties?: object }; annotations: unknown }) => [
      t.name,
      Object.keys(t.inputSchema.properties ?? {}),
      t.annotations,
    ]
    expect(current.map(shape)).toEqual(legacy.map(shape))
  })

  describe('request headers: "Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body" (streamable-http.mdx)', () => {
    it('Mcp-Method and Mcp-Name present and matching: answered', async () => {
      const r = await callModern('list_policies')
      expect(r.status).toBe(200)
      expect(r.body.result.isError).toBeFalsy()
    })

    it.each([
      ['Mcp-Method missing', { 'mcp-method': null }],
      ['Mcp-Name missing on tools/call', { 'mcp-name': null }],
      ['Mcp-Method disagreeing with the body', { 'mcp-method': 'tools/list' }],
      ['Mcp-Name disagreeing with the body', { 'mcp-name': 'check_api_health' }],
    ])('%s: 400 HeaderMismatch (-32020)', async (_, headers) => {
      const r = await modern('tools/call', { name: 'list_policies', arguments: {} }, { headers })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe(-32020)
    })

    it('"servers MUST decode an encoded Mcp-Name … before comparing it": a Base64 sentinel value is accepted', async () => {
      const r = await modern(
        'tools/call',
        { name: 'list_policies', arguments: {} },
        { headers: { 'mcp-name': `=?base64?${Buffer.from('list_policies').toString('base64')}?=` } },
      )
      expect([r.status, r.body.result?.isError]).toEqual([200, undefined])
    })
  })

  it('"If the server does not implement the requested protocol version … it MUST respond with 400 Bad Request and an UnsupportedProtocolVersionError listing its supported versions" (streamable-http.mdx)', async () => {
    const r = await modern(
      'tools/list',
      {},
      { meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }, headers: { 'mcp-protocol-version': '2099-01-01' } },
    )
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe(-32022)
    expect(r.body.error.data.supported).toContain(MODERN)
    expect(r.body.error.data.requested).toBe('2099-01-01')
  })

  it('"The header value MUST match the io.modelcontextprotocol/protocolVersion field carried in the request body\'s _meta" (streamable-http.mdx)', async () => {
    const r = await modern('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe(-32020)
  })

  it('"Every request now carries its protocol version and client capabilities in _meta" (changelog.mdx): a request without client capabilities is refused, one with them answered', async () => {
    const without = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' } } },
      },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    )
    expect(without.status).toBe(400)
    expect(without.body.error.code).toBe(-32602)
    expect(without.body.error.message).toContain('clientCapabilities')
    const withThem = await modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } })
    expect(withThem.status).toBe(200)
  })

  it.each(['GET', 'DELETE'])('"HTTP GET or DELETE to the MCP endpoint: respond with 405 Method Not Allowed" (streamable-http.mdx): %s', async (method) => {
    const res = await fetch(`${app.url}/api/mcp`, { method, headers: { 'mcp-protocol-version': MODERN, 'mcp-session-id': 'abc' } })
    await res.body?.cancel()
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
  })

  it('"An Mcp-Session-Id header on a request: ignore it, and do not mint or echo session IDs" (streamable-http.mdx)', async () => {
    const r = await modern('tools/list', {}, { headers: { 'mcp-session-id': 'a-session-from-2025' } })
    expect(r.status).toBe(200)
    expect(r.headers.get('mcp-session-id')).toBeNull()
    expect(r.body.result.tools).toHaveLength(9)
  })

  it('"servers MUST NOT emit notifications/message for requests that did not include this field" (changelog.mdx): the log level is per request', async () => {
    const quiet = await callModern('list_policies')
    expect(quiet.headers.get('content-type')).toContain('application/json')
    expect(quiet.events).toEqual([])
    const verbose = await callModern('list_policies', {}, { 'io.modelcontextprotocol/logLevel': 'debug' })
    expect(verbose.status).toBe(200)
    expect(verbose.events.filter((e) => e.method === 'notifications/message')).toEqual([
      expect.objectContaining({
        params: expect.objectContaining({ level: 'debug', logger: 'utility-api', data: expect.objectContaining({ tool: 'list_policies', isError: false }) }),
      }),
    ])
    expect(verbose.body.result.structuredContent).toEqual(quiet.body.result.structuredContent)
    // A level above the message's drops it again.
    const errorsOnly = await callModern('list_policies', {}, { 'io.modelcontextprotocol/logLevel': 'error' })
    expect(errorsOnly.events.filter((e) => e.method === 'notifications/message')).toEqual([])
  })

  it('"ping and logging/setLevel are removed" (changelog.mdx): answered as unknown methods', async () => {
    for (const method of ['ping', 'logging/setLevel']) {
      const r = await modern(method, method === 'ping' ? {} : { level: 'debug' })
      expect(r.body.error.code, method).toBe(-32601)
    }
  })
})

describe('both eras', () => {
  it('a 2025 client keeps its handshake: initialize answers with a 2025 revision', async () => {
    const r = await post(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
      {},
    )
    expect(r.body.result.protocolVersion).toBe('2025-11-25')
    expect(r.body.result.resultType).toBeUndefined()
  })

  it.each([
    ['list_policies', {}],
    ['get_pds_repos', {}],
    ['get_pds_repos', { limit: 5, cursor: Buffer.from('repos:40').toString('base64url') }],
    ['get_pds_blob_storage_usage_for_did', { did: didOf(0) }],
    ['get_pds_bsky_heatmap', { year: YEAR }],
    ['check_domain_health', { domain: 'febit.eu' }],
  ])('the same tools/call carries the same structured content and text in both eras: %s %j', async (name, args) => {
    const legacy = (await callLegacy(name, args)).body.result
    const current = (await callModern(name, args)).body.result
    expect(legacy.isError, textOf(legacy)).toBeFalsy()
    const stable = (v: unknown) => JSON.parse(JSON.stringify(v), (k, x) => (k === 'checkedAt' || k === 'latencyMs' || k === 'durationMs' ? 0 : x))
    expect(stable(current.structuredContent)).toEqual(stable(legacy.structuredContent))
    expect(current.content).toHaveLength(1)
  })

  it.each([
    ['verify_pds_handle_availability', { handle: 'ab.bsky.social' }, 'at least 3 characters'],
    ['get_pds_repos', { cursor: 'not-a-cursor' }, 'is not a cursor this tool returned'],
    ['get_pds_blob_storage_usage_for_did', { did: 'did:plc:abcdefghijklmnopqrstuvwx' }, 'get_pds_repos lists the accounts on this PDS'],
  ])('errors a model can act on, the same in both eras: %s %j', async (name, args, advice) => {
    const legacy = (await callLegacy(name, args)).body.result
    const current = (await callModern(name, args)).body.result
    expect([legacy.isError, current.isError]).toEqual([true, true])
    expect(textOf(legacy)).toContain(advice)
    expect(textOf(current)).toBe(textOf(legacy))
  })

  it('arguments failing the input schema are an isError result naming the argument and its bound in both eras (each SDK words its own validation message)', async () => {
    const legacy = (await callLegacy('get_pds_repos', { limit: 201 })).body.result
    const current = (await callModern('get_pds_repos', { limit: 201 })).body.result
    for (const result of [legacy, current]) {
      expect(result.isError).toBe(true)
      expect(textOf(result)).toMatch(/Input validation error: Invalid arguments for tool get_pds_repos:.*limit/)
      expect(textOf(result)).toContain('<=200')
    }
  })

  it('an unknown tool is a protocol error (-32602) in both eras', async () => {
    expect((await callLegacy('nope')).body.error.code).toBe(-32602)
    const r = await modern('tools/call', { name: 'nope', arguments: {} })
    expect(r.body.error.code).toBe(-32602)
  })
})

describe('bounded tool output, with a PDS of 10,000 repositories', () => {
  // Each result within 24,000 characters (RESULT_MAX_CHARS, lib/mcp/tool.ts), its text block at most
  // 1.1 times the structured content.
  const BUDGET = 24_000
  const withinBudget = (result: { content: { type: string; text: string }[]; structuredContent: unknown }) => {
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(BUDGET)
    expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(1.1 * Buffer.byteLength(JSON.stringify(result.structuredContent)))
  }

  it('get_pds_repos answers a default page of 50 with truncated and nextCursor, within the budget', async () => {
    const { result } = (await callModern('get_pds_repos')).body
    const data = result.structuredContent
    expect([data.total, data.active, data.inactive]).toEqual([REPOS, ACTIVE, REPOS - ACTIVE])
    expect(data.repos).toHaveLength(50)
    expect(data.truncated).toBe(true)
    expect(typeof data.nextCursor).toBe('string')
    withinBudget(result)
    // The text block is the summary and the same JSON.
    const text = textOf(result)
    expect(text.startsWith(`${REPOS} repositories on the PDS: ${ACTIVE} active, ${REPOS - ACTIVE} inactive. This page lists 50;`)).toBe(true)
    expect(JSON.parse(text.slice(text.indexOf('\n\n') + 2))).toEqual(data)
  })

  it('get_pds_repos asked for 200 answers the page that fits the budget, and the cursors walk all 10,000 repositories once', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    for (let page = 0; page < 250; page++) {
      const { result } = (await callModern('get_pds_repos', { limit: 200, ...(cursor ? { cursor } : {}) })).body
      withinBudget(result)
      if (page === 0) {
        expect(result.structuredContent.repos.length).toBeLessThan(200)
        expect(textOf(result)).toContain(`It holds ${result.structuredContent.repos.length} of the 200 asked for, to stay within ${BUDGET} characters.`)
      }
      seen.push(...result.structuredContent.repos.map((r: { did: string }) => r.did))
      cursor = result.structuredContent.nextCursor ?? undefined
      if (!result.structuredContent.truncated) break
    }
    expect(cursor).toBeUndefined()
    expect(seen).toHaveLength(REPOS)
    expect(new Set(seen).size).toBe(REPOS)
  })

  it('the heatmap and blob tools are bounded by their shape, not by the PDS: a year of days and three totals', async () => {
    const heatmap = (await callModern('get_pds_bsky_heatmap', { year: YEAR })).body.result
    expect(Object.keys(heatmap.structuredContent.days).length).toBeLessThanOrEqual(366)
    expect(heatmap.structuredContent.totalPosts).toBeGreaterThan(0)
    withinBudget(heatmap)
    const blobs = (await callModern('get_pds_blob_storage_usage')).body.result
    expect(blobs.structuredContent.accountCount).toBe(ACTIVE)
    withinBudget(blobs)
  })
})

describe('discoverable (modelcontextprotocol/experimental-ext-server-card, docs/discovery.md)', () => {
  const CARD = '/api/mcp/server-card'
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers })

  it('"MCP Servers MAY host their Server Card at GET <streamable-http-url>/server-card": the card, with its media type, an hour of public caching, an ETag and CORS', async () => {
    const res = await get(CARD, { accept: 'application/mcp-server-card+json', origin: 'https://any.example' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600')
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/)
    // "Access-Control-Allow-Origin: *, …-Methods: GET, …-Headers: Content-Type, If-None-Match, …-Expose-Headers: ETag" (the gate's, a superset).
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('access-control-allow-methods')?.split(', ')).toContain('GET')
    expect(res.headers.get('access-control-allow-headers')?.split(', ')).toEqual(expect.arrayContaining(['Content-Type', 'If-None-Match']))
    expect(res.headers.get('access-control-expose-headers')?.split(', ')).toContain('ETag')
    // Rate-limited like every route: the gate's headers are there.
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"default";q=\d+;w=\d+$/)
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const card = await res.json()
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'test.mcp.api/utility-api',
      version: '1.1.0',
      description: expect.any(String),
      title: 'Utility API',
      websiteUrl: 'https://api.mcp.test/',
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://api.mcp.test/api/mcp',
          supportedProtocolVersions: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'],
        },
      ],
    })
    expect(card.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/)
    expect(card.description.length).toBeLessThanOrEqual(100)
    // "Server Cards do not enumerate primitives (tools, resources, prompts)".
    expect(JSON.stringify(card)).not.toContain('list_policies')
  })

  it('"Hosts SHOULD honor If-None-Match and return 304 Not Modified": revalidation with the ETag (weak comparison, lists)', async () => {
    const etag = (await get(CARD)).headers.get('etag')!
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const res = await get(CARD, { 'if-none-match': ifNoneMatch })
      expect(res.status, ifNoneMatch).toBe(304)
      expect(await res.text()).toBe('')
      expect([res.headers.get('etag'), res.headers.get('cache-control')]).toEqual([etag, 'public, max-age=3600'])
    }
    // A stale tag gets the document; `*` too, since the proxy drops `If-None-Match: *` for every page (lib/gate/edges.ts).
    for (const ifNoneMatch of ['"stale"', '*']) {
      const res = await get(CARD, { 'if-none-match': ifNoneMatch })
      expect([res.status, res.headers.get('etag')]).toEqual([200, etag])
      expect((await res.json()).version).toBe('1.1.0')
    }
  })

  it("A Server Card SHOULD accurately reflect the server's runtime behavior: name, version and endpoint agree with server/discover and initialize", async () => {
    const card = await (await get(CARD)).json()
    const discover = (await modern('server/discover')).body.result
    const info = discover._meta['io.modelcontextprotocol/serverInfo']
    expect(card.name.split('/')[1]).toBe(info.name)
    expect(card.version).toBe(info.version)
    expect(card.title).toBe(info.title)
    const [remote] = card.remotes
    expect(new URL(remote.url).pathname).toBe('/api/mcp')
    // Every version server/discover supports is on the card, and each 2025-era version the card lists is one initialize agrees to.
    expect(remote.supportedProtocolVersions).toEqual(expect.arrayContaining(discover.supportedVersions))
    for (const version of remote.supportedProtocolVersions.filter((v: string) => v !== MODERN)) {
      const init = await post(
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'card-check', version: '1' } },
        },
        {},
      )
      expect(init.body.result.protocolVersion, version).toBe(version)
      expect(init.body.result.serverInfo).toMatchObject({ name: info.name, version: card.version })
    }
  })

  it("the card's old address, /.well-known/mcp/server-card.json, answers the same document", async () => {
    const [card, alias] = await Promise.all([get(CARD), get('/.well-known/mcp/server-card.json')])
    expect(alias.status).toBe(200)
    expect(alias.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect(alias.headers.get('etag')).toBe(card.headers.get('etag'))
    expect(alias.headers.get('ratelimit-policy')).toBe(card.headers.get('ratelimit-policy'))
    expect(await alias.json()).toEqual(await card.json())
    expect((await get('/.well-known/mcp/server-card.json', { 'if-none-match': card.headers.get('etag')! })).status).toBe(304)
  })

  it('"Clients performing domain-level discovery SHOULD attempt to retrieve /.well-known/ai-catalog.json": one entry pointing at the card', async () => {
    const res = await get('/.well-known/ai-catalog.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/ai-catalog+json')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"default";/)
    const etag = res.headers.get('etag')!
    const catalog = await res.json()
    expect(catalog).toEqual({
      specVersion: '1.0',
      entries: [
        { identifier: 'urn:air:api.mcp.test:mcp:utility-api', type: 'application/mcp-server-card+json', url: 'https://api.mcp.test/api/mcp/server-card' },
      ],
    })
    expect((await get('/.well-known/ai-catalog.json', { 'if-none-match': etag })).status).toBe(304)
    // The entry's URL is this server's card (the public base URL's path on this host).
    const card = await get(new URL(catalog.entries[0].url).pathname)
    expect(card.headers.get('content-type')).toBe(catalog.entries[0].type)
  })

  it('server.json in the repository (the MCP Registry entry) matches the tool registry and the card', async () => {
    const file = JSON.parse(readFileSync(path.join(__dirname, '../../server.json'), 'utf8'))
    const card = await (await get(CARD)).json()
    expect(file).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'com.example.api/utility-api',
      version: JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')).version,
      title: card.title,
      description: card.description,
      remotes: [{ type: 'streamable-http', url: 'https://api.example.com/api/mcp' }],
    })
    expect(file.description.length).toBeLessThanOrEqual(100)
    const publisher = file._meta['io.modelcontextprotocol.registry/publisher-provided']
    const listed = (await modern('tools/list')).body.result.tools.map((t: { name: string; title: string }) => ({ name: t.name, title: t.title }))
    expect(publisher.tools).toEqual(listed)
    expect(publisher.supportedProtocolVersions).toEqual(card.remotes[0].supportedProtocolVersions)
  })
})

describe('real clients', () => {
  const ARGS: Record<string, Record<string, unknown>> = {
    check_domain_health: { domain: 'febit.eu' },
    get_pds_blob_storage_usage_for_did: { did: didOf(0) },
    get_pds_bsky_heatmap: { year: YEAR },
    verify_pds_handle_availability: { handle: 'newuser.bsky.social' },
  }

  it('the v2 SDK client (@modelcontextprotocol/client) pinned to 2026-07-28 lists and calls every tool', async () => {
    const client = new ModernClient({ name: 'mcp-2026-itest', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
    await client.connect(new ModernTransport(new URL('/api/mcp', app.url)))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES)
      for (const tool of tools) {
        const result = await client.callTool({ name: tool.name, arguments: ARGS[tool.name] ?? {} })
        expect(result.isError, `${tool.name}: ${JSON.stringify(result.content)}`).toBeFalsy()
        expect(result.structuredContent, tool.name).toBeTypeOf('object')
      }
    } finally {
      await client.close()
    }
  })

  it('the v2 SDK client in auto mode finds the 2026-07-28 era by itself (server/discover)', async () => {
    const client = new ModernClient({ name: 'mcp-2026-itest', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new ModernTransport(new URL('/api/mcp', app.url)))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
    } finally {
      await client.close()
    }
  })

  const inspector = path.join(__dirname, '../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js')
  const run = promisify(execFile)
  // The CLI finds its own package.json by a path relative to the working directory (checked with
  // fs.existsSync) that it then imports relative to its module, so it runs from its build folder.
  const cli = async (...args: string[]) =>
    JSON.parse(
      (await run(process.execPath, [inspector, `${app.url}/api/mcp`, '--transport', 'http', ...args], { timeout: 30_000, cwd: path.dirname(inspector) }))
        .stdout,
    )

  it('the Inspector CLI (a 2025-era client) lists and calls every tool', async () => {
    const { tools } = await cli('--method', 'tools/list')
    expect(tools.map((t: { name: string }) => t.name)).toEqual(TOOL_NAMES)
    for (const name of TOOL_NAMES) {
      const args = Object.entries(ARGS[name] ?? {}).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`])
      const result = await cli('--method', 'tools/call', '--tool-name', name, ...args)
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy()
      expect(result.structuredContent, name).toBeTypeOf('object')
    }
  })
})

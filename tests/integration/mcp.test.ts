import { mkdtempSync, rmSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import * as dnsPacket from 'dns-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { loadZones } from '../../test-support/dns-zones'
import { answerQuery } from '../../test-support/fake-doh'
import { blobRef, createFakePds, postRecord } from '../../test-support/fake-pds'
import { fixture, sendJson, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { loadContract } from '../../test-support/openapi'
import { tools as registry } from '@/lib/mcp/tools'

// The MCP tool server in the built app: the SDK's client over its streamable HTTP transport, and raw
// HTTP for the transport's edges. Upstreams are fakes on loopback: a DoH resolver answering from
// the zone fixtures, an MTA-STS policy host, and a PDS with its PLC directory.

// Every tool of the registry, listed sorted by name (a deterministic order, as revision 2026-07-28 asks;
// one registry for both eras).
const TOOLS = registry.map((t) => t.name).sort()
const OFFLINE_TOOLS = ['check_api_health', 'list_policies']

const B32 = 'abcdefghijklmnopqrstuvwxyz234567'
const didOf = (i: number) =>
  `did:plc:${[...i.toString(32)]
    .map((c) => B32[parseInt(c, 32)])
    .join('')
    .padStart(24, 'a')}`
const YEAR = new Date().getUTCFullYear()
const YEAR_START = Date.UTC(YEAR, 0, 1)
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const ALLOWED_ORIGIN = 'https://console.example'
const PUBLIC_ORIGIN = 'https://api.mcp.test'

const zone = loadZones('well-configured', 'providers', 'weak', 'platform')
let dohFault: 'http500' | null = null

const pds = createFakePds({
  accounts: [
    {
      did: didOf(0),
      handle: 'alice.bsky.social',
      records: {
        'app.bsky.feed.post': [
          postRecord(new Date(YEAR_START + 1000).toISOString()),
          {
            ...postRecord(new Date(YEAR_START + 2000).toISOString()),
            value: {
              $type: 'app.bsky.feed.post',
              text: 'a picture',
              createdAt: new Date(YEAR_START + 2000).toISOString(),
              embed: { $type: 'app.bsky.embed.images', images: [{ alt: 'a', image: blobRef('bafkreia', 1000) }] },
            },
          },
          postRecord(new Date(YEAR_START + 90_000_000).toISOString()),
        ],
      },
      blobs: { bafkreia: 1000, bafkreib: 2048 },
    },
    { did: didOf(1), records: { 'app.bsky.feed.post': [postRecord(new Date(YEAR_START + 3000).toISOString())] } },
    { did: didOf(2), active: false, blobs: { bafkreiz: 99 } },
  ],
  describeServer: fixture('atproto/describeServer-maitake.us-west.host.bsky.network.json'),
  health: fixture('atproto/health-pds-0.2.2-beta.2.json'),
  resolve: { 'atproto.com': '{"did":"did:plc:ewvi7nxzyoun6zhxrhs64oiz"}' },
  hangMs: 3000,
})

let doh: FakeUpstream
let policyHost: FakeUpstream
let pdsHost: FakeUpstream
let app: RunningApp
let contract: Awaited<ReturnType<typeof loadContract>>
const logDir = mkdtempSync(path.join(tmpdir(), 'mcp-itest-'))

beforeAll(async () => {
  doh = await startFakeUpstream((req, res) => {
    if (dohFault === 'http500') return void res.writeHead(500).end('resolver down')
    res.writeHead(200, { 'content-type': 'application/dns-message' }).end(answerQuery(zone, dnsPacket.decode(req.body)))
  })
  policyHost = await startFakeUpstream((req, res) => {
    if (req.path !== '/febit.eu/.well-known/mta-sts.txt') return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/plain' }).end(fixture('mta-sts/mta-sts.febit.eu-enforce-wildcard-mx.txt'))
  })
  pdsHost = await startFakeUpstream((req, res) => {
    if (decodeURIComponent(req.path) === '/plc/did:plc:ewvi7nxzyoun6zhxrhs64oiz')
      return sendJson(res, 200, fixture('atproto/plc-did-document-atproto.com-multikey.json'))
    return pds.handler(req, res)
  })
  app = await startApp({
    DOH_URL: `${doh.url}/dns-query`,
    MTA_STS_URL_TEMPLATE: `${policyHost.url}/{domain}/.well-known/mta-sts.txt`,
    PLATFORM_DOMAINS: 'platform.example, febit.eu',
    PDS_URL: pdsHost.url,
    PLC_URL: `${pdsHost.url}/plc`,
    UPSTREAM_TIMEOUT_MS: '1000',
    PUBLIC_BASE_URL: PUBLIC_ORIGIN,
    MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
    PGLITE_DIR: logDir,
    // Each domain check costs 41 units (lib/mcp/cost.ts) and this file makes a few dozen calls in
    // one window; the limit itself is tested with an app of its own below.
    RATE_LIMIT_MAX: '5000',
  })
  contract = await loadContract(app.url)
})

afterAll(async () => {
  await app?.stop()
  await Promise.all([doh?.close(), policyHost?.close(), pdsHost?.close()])
  rmSync(logDir, { recursive: true, force: true })
})

// ------------------------------------------------------------------------------ helpers

async function connect(target: RunningApp = app, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'mcp-itest', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', target.url), { requestInit: { headers } }))
  return client
}

const validator = new AjvJsonSchemaValidator()

/**
 * A successful call: structured content valid against the advertised schema, and a text copy of it:
 * the JSON, after a summary when the summary adds at most a tenth (`summary` is null otherwise), so
 * the text is never more than 1.1 times the structured content.
 */
function expectStructured(tool: Tool, result: CallToolResult) {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
  const check = validator.getValidator(tool.outputSchema as never)(result.structuredContent)
  expect(check.valid, check.errorMessage).toBe(true)
  expect(result.content).toHaveLength(1)
  const block = result.content[0]
  expect(block.type).toBe('text')
  const text = (block as { text: string }).text
  const structuredBytes = Buffer.byteLength(JSON.stringify(result.structuredContent))
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1.1 * structuredBytes)
  const [summary, json] = text.startsWith('{') ? [null, text] : [text.slice(0, text.indexOf('\n\n')), text.slice(text.indexOf('\n\n') + 2)]
  expect(JSON.parse(json)).toEqual(result.structuredContent)
  return { summary, data: result.structuredContent as Record<string, never> }
}

/** A failed call: an isError result whose single text block is the actionable message. */
function failureText(result: CallToolResult): string {
  expect(result.isError).toBe(true)
  expect(result.structuredContent).toBeUndefined()
  expect(result.content).toHaveLength(1)
  expect(result.content[0].type).toBe('text')
  return (result.content[0] as { text: string }).text
}

let client: Client
let listed: Map<string, Tool>
const call = async (name: string, args: Record<string, unknown> = {}, c: Client = client) => (await c.callTool({ name, arguments: args })) as CallToolResult
const success = async (name: string, args: Record<string, unknown> = {}) => expectStructured(listed.get(name)!, await call(name, args))

interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: unknown
}

/** One HTTP request with full control of the headers (fetch will not send a chosen Host). */
function raw(method: string, headers: Record<string, string>, body?: string, target: RunningApp = app): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: target.port, path: '/api/mcp', method, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const rpc = (message: unknown, headers: Record<string, string> = {}, target?: RunningApp) =>
  raw('POST', { ...MCP_HEADERS, ...headers }, typeof message === 'string' ? message : JSON.stringify(message), target)
const healthCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_api_health', arguments: {} } }

/** Raw answers are checked against the OpenAPI document the server publishes. */
function expectDocumented(answer: RawAnswer) {
  contract.expectValid('POST', '/api/mcp', answer.status, answer.body)
}

// ------------------------------------------------------------------------------ tests

// Upstream failures first: a success fills the caches (with stale copies kept for outages).
describe('upstream failures, before any answer is cached', () => {
  beforeAll(async () => {
    client = await connect()
  })

  it('get_pds_repos: a PDS error is a tool error that says to retry', async () => {
    pds.faults.set('com.atproto.sync.listRepos', 'status500')
    try {
      const text = failureText(await call('get_pds_repos'))
      expect(text).toBe('PDS answered HTTP 500. The failure is on the upstream side; retry in a minute or two.')
    } finally {
      pds.faults.delete('com.atproto.sync.listRepos')
    }
  })

  it('list_domains: the resolver failing for every domain is a tool error', async () => {
    dohFault = 'http500'
    try {
      const text = failureText(await call('list_domains'))
      expect(text).toMatch(/answered HTTP 500\. The failure is on the upstream side; retry in a minute or two\.$/)
    } finally {
      dohFault = null
    }
  })

  it('check_domain_health: the resolver failing is a tool error', async () => {
    dohFault = 'http500'
    try {
      expect(failureText(await call('check_domain_health', { domain: 'fault.example' }))).toContain('retry in a minute or two')
    } finally {
      dohFault = null
    }
  })

  it('get_pds_bsky_heatmap: a PDS that does not answer in time is a tool error that says to retry', async () => {
    pds.faults.set('com.atproto.repo.listRecords', 'timeout')
    try {
      const text = failureText(await call('get_pds_bsky_heatmap', { year: YEAR - 1 }))
      expect(text).toMatch(/^PDS did not answer within 1000 ms; try again shortly\. Retry in a few seconds/)
    } finally {
      pds.faults.delete('com.atproto.repo.listRecords')
    }
  })

  it('verify_pds_handle_availability: handle resolution failing is a tool error', async () => {
    pds.faults.set('com.atproto.identity.resolveHandle', 'status500')
    try {
      expect(failureText(await call('verify_pds_handle_availability', { handle: 'someone.bsky.social' }))).toContain('PDS answered HTTP 500')
    } finally {
      pds.faults.delete('com.atproto.identity.resolveHandle')
    }
  })
})

describe('initialize and tools/list', () => {
  it('initializes with the server identity and the tools capability', async () => {
    const c = await connect()
    try {
      expect(c.getServerVersion()).toMatchObject({ name: 'utility-api', title: 'Utility API', version: '1.1.0' })
      expect(c.getServerCapabilities()?.tools).toBeDefined()
      expect(c.getServerCapabilities()?.resources).toBeUndefined()
      expect(c.getInstructions()).toContain('Read-only tools')
    } finally {
      await c.close()
    }
  })

  it('lists exactly the tools of the registry with titles, descriptions, strict input schemas and output schemas', async () => {
    const { tools } = await client.listTools()
    listed = new Map(tools.map((t) => [t.name, t]))
    expect(tools.map((t) => t.name)).toEqual(TOOLS)
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy()
      expect(t.description!.length, t.name).toBeGreaterThan(150)
      expect(t.description, t.name).toMatch(/fail/i)
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false })
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object' })
      expect(t.annotations, t.name).toEqual({
        title: t.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: !OFFLINE_TOOLS.includes(t.name),
      })
    }
  })

  it('advertises the arguments each tool takes', () => {
    const args = Object.fromEntries([...listed].map(([name, t]) => [name, [Object.keys(t.inputSchema.properties ?? {}), t.inputSchema.required ?? []]]))
    expect(args).toEqual({
      check_domain_health: [['domain', 'selectors'], ['domain']],
      list_domains: [[], []],
      get_pds_repos: [['limit', 'cursor'], []],
      verify_pds_handle_availability: [['handle'], ['handle']],
      get_pds_bsky_heatmap: [['year'], ['year']],
      get_pds_blob_storage_usage: [[], []],
      get_pds_blob_storage_usage_for_did: [['did'], ['did']],
      check_api_health: [[], []],
      list_policies: [[], []],
    })
    // typed JSON, not the query-string forms of the REST operations
    expect(listed.get('check_domain_health')!.inputSchema.properties!.selectors).toMatchObject({ type: 'array', maxItems: 10 })
    expect(listed.get('get_pds_bsky_heatmap')!.inputSchema.properties!.year).toMatchObject({ type: 'integer', minimum: 2020 })
  })
})

describe('domain tools', () => {
  it('check_domain_health grades a well-configured platform domain, probing the given selectors', async () => {
    const { summary, data } = await success('check_domain_health', { domain: 'FEBIT.eu', selectors: ['s2048'] })
    expect(data).toMatchObject({ domain: 'febit.eu', isPlatformDomain: true, score: 100, grade: 'A', recommendations: [] })
    expect((data.checks as { dkim: { selectorsProbed: string[] } }).dkim.selectorsProbed).toContain('s2048')
    expect(summary).toBe('febit.eu: grade A (score 100/100); 10 pass, 0 warn, 0 fail, 0 not found, 0 info. Nothing to fix.')
  })

  it('check_domain_health puts the heaviest recommendation in the summary of a weak domain', async () => {
    const { summary, data } = await success('check_domain_health', { domain: 'weak.example' })
    const first = (data.recommendations as { check: string; action: string }[])[0]
    expect(data.grade).not.toBe('A')
    expect(summary).toContain(`First recommendation (${first.check}): ${first.action}`)
  })

  it.each([
    [
      { domain: 'nothing-here.example' },
      'nothing-here.example does not exist in DNS (NXDOMAIN). Check the spelling of the domain; list_domains lists the platform domains.',
    ],
    [{ domain: 'https://example.com/' }, 'not a bare domain name'],
    [{ domain: '192.0.2.1' }, 'is an IP address'],
    [{ domain: 'example.com', selectors: 's1,s2' }, 'selectors'],
    [{ domain: 'example.com', selectors: ['bad selector'] }, 'DKIM selector'],
    [{ domain: 'example.com', verbose: true }, 'verbose'],
    [{}, 'domain'],
  ])('check_domain_health %j fails with an actionable message', async (args, message) => {
    expect(failureText(await call('check_domain_health', args))).toContain(message)
  })

  it('list_domains lists the configured platform domains with their records, as GET /api/domains does', async () => {
    const { summary, data } = await success('list_domains')
    expect(summary).toBe('2 platform domains (from PLATFORM_DOMAINS): platform.example, febit.eu.')
    const rest = await (await fetch(`${app.url}/api/domains`)).json()
    expect(data).toEqual(rest)
  })

  it('list_domains refuses arguments', async () => {
    expect(failureText(await call('list_domains', { domain: 'febit.eu' }))).toContain('Unrecognized key')
  })
})

describe('social platform tools', () => {
  it('get_pds_repos lists the repositories with counts, as GET /api/pds/repos does, in pages (limit, cursor)', async () => {
    const { summary, data } = await success('get_pds_repos')
    // Small answers are their own summary: the text is the JSON alone (the summary would add more than a tenth).
    expect(summary).toBeNull()
    expect(data).toEqual({ ...(await (await fetch(`${app.url}/api/pds/repos`)).json()), truncated: false, nextCursor: null })
  })

  it('verify_pds_handle_availability reports a free handle', async () => {
    const { summary, data } = await success('verify_pds_handle_availability', { handle: 'NewUser.bsky.social' })
    expect(data).toEqual({ handle: 'newuser.bsky.social', available: true, reason: null, did: null, verified: null })
    expect(summary).toBeNull()
  })

  it('verify_pds_handle_availability reports a taken handle with its DID, checked both ways', async () => {
    const { summary, data } = await success('verify_pds_handle_availability', { handle: 'atproto.com' })
    expect(data).toMatchObject({ available: false, did: 'did:plc:ewvi7nxzyoun6zhxrhs64oiz', verified: true })
    expect(summary).toBeNull()
  })

  it.each([
    ['ab.bsky.social', 'at least 3 characters'],
    ['@alice.bsky.social', 'leading "@"'],
  ])('verify_pds_handle_availability refuses %s naming the rule and what to change', async (handle, rule) => {
    const text = failureText(await call('verify_pds_handle_availability', { handle }))
    expect(text).toContain(rule)
  })

  it('verify_pds_handle_availability adds advice to a service-domain rule the schema cannot see', async () => {
    const text = failureText(await call('verify_pds_handle_availability', { handle: 'a.b.bsky.social' }))
    expect(text).toMatch(/no dots.*Change the handle to a full domain name such as alice\.bsky\.social/)
  })

  it('get_pds_bsky_heatmap counts posts per day of the active accounts', async () => {
    const { summary, data } = await success('get_pds_bsky_heatmap', { year: YEAR })
    const expected: Record<string, number> = {}
    for (const ms of [YEAR_START + 1000, YEAR_START + 2000, YEAR_START + 3000, YEAR_START + 90_000_000].filter((ms) => ms <= Date.now()))
      expected[day(ms)] = (expected[day(ms)] ?? 0) + 1
    const total = Object.values(expected).reduce((a, b) => a + b, 0)
    expect(data).toEqual({ year: YEAR, totalPosts: total, activeDays: Object.keys(expected).length, days: expected })
    expect(summary).toBeNull()
    expect(data.days).toEqual(await (await fetch(`${app.url}/api/pds/blueskyHeatmap?forYear=${YEAR}`)).json())
  })

  it.each([[{ year: 2019 }], [{ year: YEAR + 1 }], [{ year: String(YEAR) }], [{ year: 2024.5 }], [{}]])('get_pds_bsky_heatmap refuses %j', async (args) => {
    expect(failureText(await call('get_pds_bsky_heatmap', args))).toContain('year')
  })

  it('get_pds_blob_storage_usage totals the active accounts', async () => {
    const { summary, data } = await success('get_pds_blob_storage_usage')
    expect(data).toEqual({ did: null, usageBytes: 3048, blobCount: 2, accountCount: 2 })
    expect(summary).toBeNull()
  })

  it('get_pds_blob_storage_usage_for_did totals one account', async () => {
    const { summary, data } = await success('get_pds_blob_storage_usage_for_did', { did: didOf(0) })
    expect(data).toEqual({ did: didOf(0), usageBytes: 3048, blobCount: 2, accountCount: 1 })
    expect(summary).toBeNull()
  })

  it.each([
    [didOf(5000), `No account ${didOf(5000)} on this PDS. get_pds_repos lists the accounts on this PDS and whether each is active.`],
    [didOf(2), 'is not active on this PDS (RepoDeactivated)'],
    ['did:plc:123', 'must be a did:plc: DID'],
    ['alice.bsky.social', 'must be a did:plc: DID'],
  ])('get_pds_blob_storage_usage_for_did fails for %s', async (did, message) => {
    expect(failureText(await call('get_pds_blob_storage_usage_for_did', { did }))).toContain(message)
  })

  it('get_pds_blob_storage_usage refuses arguments', async () => {
    expect(failureText(await call('get_pds_blob_storage_usage', { did: didOf(0) }))).toContain('Unrecognized key')
  })
})

describe('platform tools', () => {
  it('check_api_health reports the status /api/health reports', async () => {
    const { summary, data } = await success('check_api_health')
    const rest = await (await fetch(`${app.url}/api/health`)).json()
    expect(data.status).toBe(rest.status)
    expect(data).toMatchObject({ status: 'ok', version: '1.1.0', checks: { rateLimitStore: { status: 'ok' }, database: { status: 'ok' } } })
    expect(summary).toMatch(/^API health status: ok\. Version 1\.1\.0, up \d+ s\.$/)
  })

  it('check_api_health refuses arguments', async () => {
    expect(failureText(await call('check_api_health', { verbose: true }))).toContain('Unrecognized key')
  })

  it('list_policies lists the policies, as GET /api/policies does', async () => {
    const { summary, data } = await success('list_policies')
    expect(data).toEqual(await (await fetch(`${app.url}/api/policies`)).json())
    // Eight titles and versions add more than a tenth to the JSON, which carries them anyway.
    expect(summary).toBeNull()
  })

  it('list_policies refuses arguments', async () => {
    expect(failureText(await call('list_policies', { category: 'privacy' }))).toContain('Unrecognized key')
  })
})

describe('protocol errors', () => {
  it('an unknown tool is a JSON-RPC error (-32602), not a tool result', async () => {
    const error = await client.callTool({ name: 'fetch_tophhie_cloud_policies', arguments: {} }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(McpError)
    expect((error as McpError).code).toBe(-32602)
    expect((error as McpError).message).toContain(`Unknown tool: fetch_tophhie_cloud_policies. tools/list lists the ${registry.length} tools of this server.`)
  })

  it('answers an unknown tool over raw HTTP with the error object', async () => {
    const r = await rpc({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'nope', arguments: {} } })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32602, message: `Unknown tool: nope. tools/list lists the ${registry.length} tools of this server.` },
    })
    expectDocumented(r)
  })

  it('an unknown method is -32601', async () => {
    const r = await rpc({ jsonrpc: '2.0', id: 3, method: 'resources/list' })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32601 } })
    expectDocumented(r)
  })

  it.each([
    ['tools/call', { arguments: {} }, 'params.name'],
    ['tools/call', { name: 'list_policies', arguments: 'none' }, 'params.arguments'],
    ['initialize', { protocolVersion: 2025 }, 'params.protocolVersion'],
  ])('%s with bad params %j is -32602 naming the field', async (method, params, field) => {
    const r = await rpc({ jsonrpc: '2.0', id: 4, method, params })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: expect.stringContaining(field) } })
    expectDocumented(r)
  })

  it.each(['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json at all', `${'['.repeat(40)}${']'.repeat(40)}`])(
    '%s is a parse error (-32700), not a 500',
    async (body) => {
      const r = await rpc(body)
      expect(r.status).toBe(400)
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
      expectDocumented(r)
    },
  )
})

describe('raw HTTP', () => {
  it("answers the specification's example: tools/call check_api_health without initialize", async () => {
    const r = await rpc(healthCall)
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toMatch(/^application\/json/)
    expect(r.headers['mcp-session-id']).toBeUndefined()
    const body = r.body as { jsonrpc: string; id: number; result: { content: { type: string; text: string }[]; structuredContent: { status: string } } }
    expect([body.jsonrpc, body.id]).toEqual(['2.0', 2])
    expect(body.result.content[0].type).toBe('text')
    expect(body.result.content[0].text).toMatch(/^API health status: ok\b/)
    expect(body.result.structuredContent.status).toBe('ok')
    expectDocumented(r)
  })

  it('carries the rate-limit headers and a request id like every API answer', async () => {
    const r = await rpc(healthCall)
    expect(r.headers['ratelimit-policy']).toBe('"default";q=5000;w=30')
    expect(r.headers['ratelimit']).toMatch(/^"default";r=\d+;t=\d+$/)
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('ignores an Authorization header', async () => {
    const r = await rpc(healthCall, { authorization: 'Bearer some-token' })
    expect(r.status).toBe(200)
    expect((r.body as { result: { isError?: boolean } }).result.isError).toBeUndefined()
    const c = await connect(app, { authorization: 'Bearer some-token' })
    try {
      expect((await call('list_policies', {}, c)).isError).toBeFalsy()
    } finally {
      await c.close()
    }
  })

  // Answers are always JSON, so whatever admits application/json is enough.
  it.each(['application/json', '*/*', 'application/*'])('Accept: %s → 200', async (accept) => {
    const r = await rpc(healthCall, { accept })
    expect(r.status).toBe(200)
    expectDocumented(r)
  })

  it.each(['text/event-stream', 'text/html'])('Accept: %s → 406', async (accept) => {
    const r = await rpc(healthCall, { accept })
    expect(r.status).toBe(406)
    expect(r.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } })
    expectDocumented(r)
  })

  it('Content-Type other than JSON → 415', async () => {
    const r = await rpc(healthCall, { 'content-type': 'text/plain' })
    expect(r.status).toBe(415)
    expectDocumented(r)
  })

  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])('%s → 405 with Allow: POST', async (method) => {
    const r = await raw(method, { accept: 'application/json, text/event-stream' })
    expect(r.status).toBe(405)
    expect(r.headers.allow).toBe('POST')
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } })
  })

  it('answers a batch, screening the unknown tool in it', async () => {
    const r = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_policies', arguments: {} } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope', arguments: {} } },
    ])
    expect(r.status).toBe(200)
    const answers = r.body as { id: number; result?: { structuredContent: { count: number } }; error?: { code: number } }[]
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2])
    expect(answers.find((a) => a.id === 1)!.result!.structuredContent.count).toBe(8)
    expect(answers.find((a) => a.id === 2)!.error!.code).toBe(-32602)
    expectDocumented(r)
  })

  it.each([
    [{ id: 1 }, 1],
    [{ jsonrpc: '2.0', id: 5, method: 7 }, 5],
    [{ jsonrpc: '1.0', id: 'a', method: 'ping' }, 'a'],
    [42, null],
  ])('%j is an invalid request (-32600)', async (message, id) => {
    const r = await rpc(message)
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } })
    expectDocumented(r)
  })

  it('answers [] with one invalid-request error', async () => {
    const r = await rpc([])
    expect([r.status, r.body]).toMatchObject([400, { jsonrpc: '2.0', id: null, error: { code: -32600 } }])
    expectDocumented(r)
  })

  it('answers a one-item batch with an array', async () => {
    const r = await rpc([{ jsonrpc: '2.0', id: 9, method: 'ping' }], { 'mcp-protocol-version': '2025-03-26' })
    expect(r.status).toBe(200)
    expect(r.body).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }])
    expectDocumented(r)
  })

  it('answers each use of an id repeated within a batch', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
    const r = await rpc([ping, ping, { jsonrpc: '2.0', id: 2, method: 'ping' }])
    const answers = r.body as { id: number; result?: unknown; error?: { code: number } }[]
    expect(answers).toHaveLength(3)
    expect(
      answers
        .filter((a) => a.result)
        .map((a) => a.id)
        .sort(),
    ).toEqual([1, 2])
    expect(answers.filter((a) => a.error)).toEqual([expect.objectContaining({ id: 1, error: expect.objectContaining({ code: -32600 }) })])
    expectDocumented(r)
  })

  it.each(['2025-06-18', '2025-11-25'])('refuses a batch under protocol version %s, which has none', async (version) => {
    const r = await rpc([{ jsonrpc: '2.0', id: 1, method: 'ping' }], { 'mcp-protocol-version': version })
    expect(r.status).toBe(400)
    expect(r.body).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining(version) } })
    expectDocumented(r)
  })

  it('negotiates down from a newer protocol revision', async () => {
    const init = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })
    const result = (init.body as { result: { protocolVersion: string; capabilities: { tools: { listChanged?: boolean } } } }).result
    expect(result.protocolVersion).toBe('2025-11-25')
    // A stateless server never sends notifications/tools/list_changed.
    expect(result.capabilities.tools.listChanged).toBe(false)
    // 2026-07-28 is spoken now (tests/integration/mcp-2026.test.ts); a request at that revision
    // without its `_meta` envelope is still a 400 with -32602, so a client probing this way falls back,
    // and another unsupported version is answered as before.
    const discover = await rpc({ jsonrpc: '2.0', id: 2, method: 'server/discover' }, { 'mcp-protocol-version': '2026-07-28' })
    expect(discover.status).toBe(400)
    expect(discover.body).toMatchObject({ id: 2, error: { code: -32602, data: { envelope: { missing: ['_meta'] } } } })
    expectDocumented(discover)
    const unsupported = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-protocol-version': '2099-01-01' })
    expect(unsupported.status).toBe(400)
    expect(unsupported.body).toMatchObject({
      id: 3,
      error: { code: -32602, data: { requested: '2099-01-01', supported: expect.arrayContaining(['2025-11-25', '2025-03-26']) } },
    })
    expectDocumented(unsupported)
  })

  it('accepts a notification with 202 and no body', async () => {
    const r = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect([r.status, r.body]).toEqual([202, null])
  })
})

describe('browser origins (DNS-rebinding protection)', () => {
  it.each([
    ['a foreign page', { origin: 'https://evil.example' }],
    ['a rebound name (Host and Origin both foreign)', { origin: 'http://evil.example.com', host: 'evil.example.com' }],
    ['a loopback page on another port', { origin: 'http://127.0.0.1:1' }],
    ['an opaque origin', { origin: 'null' }],
  ])('refuses %s with 403', async (_, headers) => {
    const r = await rpc(healthCall, headers)
    expect(r.status).toBe(403)
    expect(r.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringContaining('MCP_ALLOWED_ORIGINS') } })
    expect(r.headers['access-control-allow-origin']).toBeUndefined()
    expectDocumented(r)
  })

  it.each([
    ['the public origin', () => ({ origin: PUBLIC_ORIGIN })],
    ['an origin from MCP_ALLOWED_ORIGINS', () => ({ origin: ALLOWED_ORIGIN })],
    ['a loopback page of the same origin', () => ({ origin: `http://127.0.0.1:${app.port}` })],
    // The server is reached as 127.0.0.1 here; localhost is the same loopback host.
    ['a page at localhost on the same port', () => ({ origin: `http://localhost:${app.port}` })],
    ['a client that sends no Origin', () => ({})],
  ])('serves %s', async (_, headers) => {
    const r = await rpc(healthCall, headers())
    expect(r.status).toBe(200)
  })

  it('grants CORS to an allowed browser origin only', async () => {
    const preflight = (origin: string) =>
      raw('OPTIONS', { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' })
    const allowed = await preflight(ALLOWED_ORIGIN)
    expect(allowed.status).toBe(204)
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN)
    expect(allowed.headers['access-control-allow-headers']).toMatch(/Mcp-Protocol-Version/)
    expect(allowed.headers.vary).toBe('Origin')
    const foreign = await preflight('https://evil.example')
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined()
    const post = await rpc(healthCall, { origin: ALLOWED_ORIGIN })
    expect(post.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN)
  })
})

describe('without upstream configuration', () => {
  let bare: RunningApp
  let bareClient: Client
  beforeAll(async () => {
    // No PDS, and a rate-limit store that is not there: the limiter fails open, health degrades.
    bare = await startApp({ REDIS_URL: 'redis://127.0.0.1:1/5', RATE_LIMIT_TIMEOUT_MS: '50' })
    bareClient = await connect(bare)
  })
  afterAll(async () => {
    await bareClient?.close()
    await bare?.stop()
  })

  it.each([
    ['get_pds_repos', {}],
    ['verify_pds_handle_availability', { handle: 'alice.bsky.social' }],
    ['get_pds_bsky_heatmap', { year: YEAR }],
    ['get_pds_blob_storage_usage', {}],
    ['get_pds_blob_storage_usage_for_did', { did: didOf(0) }],
  ])('%s says which setting is missing and that retrying will not help', async (name, args) => {
    const text = failureText(await call(name, args, bareClient))
    expect(text).toContain('set PDS_URL')
    expect(text).toContain('retrying will not help')
  })

  it('check_api_health reports degraded, naming the dependency that is down, as /api/health does', async () => {
    const result = await call('check_api_health', {}, bareClient)
    const { summary, data } = expectStructured(listed.get('check_api_health')!, result)
    expect(data.status).toBe('degraded')
    expect((await (await fetch(`${bare.url}/api/health`)).json()).status).toBe('degraded')
    // The degraded summary names what is down, which adds more than a tenth: the text is the JSON, which says it too.
    expect(summary).toBeNull()
    expect(JSON.stringify(data.checks)).toContain('redis store unreachable')
  })

  it('accepts browser pages of its default public origin', async () => {
    expect((await rpc(healthCall, { origin: 'http://localhost:3000' }, bare)).status).toBe(200)
    expect((await rpc(healthCall, { origin: PUBLIC_ORIGIN }, bare)).status).toBe(403)
  })
})

describe('rate limit, counted per JSON-RPC message', () => {
  // Its own app with a small limit and a window of an hour (fixed windows start on multiples of
  // it), so a window boundary does not fall inside the test.
  const MAX = 100
  let limited: RunningApp
  beforeAll(async () => {
    limited = await startApp({ RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_S: '3600', DOH_URL: `${doh.url}/dns-query`, UPSTREAM_TIMEOUT_MS: '1000' })
  })
  afterAll(() => limited?.stop())

  const remaining = (r: RawAnswer) => Number(/;r=(\d+);/.exec(String(r.headers['ratelimit']))![1])
  const policyCall = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_policies', arguments: {} } })
  const domainCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'check_domain_health', arguments: { domain: 'febit.eu' } } })
  const batch = { 'mcp-protocol-version': '2025-03-26' }

  it('charges every message of a batch, a domain check its DNS queries too, and a batch over 20 messages is refused with an error per message', async () => {
    const first = await rpc(policyCall(1), {}, limited)
    expect(first.status).toBe(200)
    const start = remaining(first)
    const five = await rpc([1, 2, 3, 4, 5].map(policyCall), batch, limited)
    expect(five.status).toBe(200)
    expect(five.body).toHaveLength(5)
    expect(remaining(five)).toBe(start - 5)
    // check_domain_health costs 1 + 40 (lib/mcp/cost.ts): the queries it sends to the resolver.
    const domain = await rpc(domainCall(6), {}, limited)
    expect((domain.body as { result: { isError?: boolean } }).result.isError).toBeFalsy()
    expect(remaining(domain)).toBe(start - 5 - 41)
    // 21 messages: refused whole (-32600 for each id), each message counted once.
    const big = await rpc(
      Array.from({ length: 21 }, (_, i) => policyCall(100 + i)),
      batch,
      limited,
    )
    expect(big.status).toBe(400)
    const errors = big.body as { id: number; error: { code: number; message: string } }[]
    expect(errors.map((e) => [e.id, e.error.code])).toEqual(Array.from({ length: 21 }, (_, i) => [100 + i, -32600]))
    expect(errors[0].error.message).toContain('at most 20 messages')
    expect(remaining(big)).toBe(start - 5 - 41 - 21)
  })

  it('answers a client over its limit with HTTP 429, Retry-After and a JSON-RPC error for each request id', async () => {
    // Spend what is left, then ask again.
    let r = await rpc(policyCall('x'), {}, limited)
    while (r.status === 200 && remaining(r) > 0)
      r = await rpc(
        Array.from({ length: Math.min(20, remaining(r)) }, (_, i) => policyCall(i)),
        batch,
        limited,
      )
    const single = await rpc(policyCall('late'), {}, limited)
    expect(single.status).toBe(429)
    expect(Number(single.headers['retry-after'])).toBeGreaterThan(0)
    expect(single.body).toEqual({
      jsonrpc: '2.0',
      id: 'late',
      error: {
        code: 429,
        message: expect.stringContaining(`Rate limit exceeded: ${MAX} requests per 3600 seconds per client.`),
        data: { retryAfter: Number(single.headers['retry-after']), limit: MAX, remaining: 0, windowSeconds: 3600, cost: 1 },
      },
    })
    expect(single.headers['cache-control']).toBe('no-store')
    contract.expectValid('POST', '/api/mcp', 429, single.body)
    const several = await rpc([policyCall(7), { jsonrpc: '2.0', method: 'notifications/initialized' }, domainCall(8)], batch, limited)
    expect(several.status).toBe(429)
    const answers = several.body as { id: number; error: { code: number; message: string; data: { cost: number } } }[]
    expect(answers.map((a) => [a.id, a.error.code, a.error.data.cost])).toEqual([
      [7, 429, 43],
      [8, 429, 43],
    ])
    expect(answers[0].error.message).toContain('This request counts as 43')
    contract.expectValid('POST', '/api/mcp', 429, several.body)
    // A body that is no JSON-RPC at all still gets a JSON-RPC error, with id null.
    const unreadable = await rpc('{"jsonrpc": "2.0", "id": ', {}, limited)
    expect([unreadable.status, unreadable.body]).toMatchObject([429, { jsonrpc: '2.0', id: null, error: { code: 429 } }])
  })

  it('a batch of 100 domain checks is 100 messages against the limit, not one request', async () => {
    const fresh = await startApp({ RATE_LIMIT_MAX: '99', RATE_LIMIT_WINDOW_S: '3600', DOH_URL: `${doh.url}/dns-query` })
    try {
      const r = await rpc(
        Array.from({ length: 100 }, (_, i) => domainCall(i)),
        batch,
        fresh,
      )
      expect(r.status).toBe(429)
      expect((r.body as unknown[]).length).toBe(100)
      expect((r.body as { error: { data: { cost: number } } }[])[0].error.data.cost).toBe(100)
    } finally {
      await fresh.stop()
    }
  })
})

describe('request log', () => {
  it('records each tool call with its tool name, and the other MCP requests without one', async () => {
    await client.close()
    const mark = new Date()
    const [one, batch, unknown] = [
      await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_policies', arguments: {} } }),
      await rpc([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_policies', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_api_health', arguments: {} } },
      ]),
      await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope', arguments: {} } }),
    ]
    await raw('GET', {})
    await app.stop() // SIGTERM flushes the buffered log
    const db = await PGlite.create(logDir)
    try {
      const { rows } = await db.query<{ request_id: string; method: string; status: number; mcp_tool: string | null }>(
        "SELECT request_id, method, status, mcp_tool FROM request_log WHERE route = '/api/mcp' AND time >= $1 ORDER BY time",
        [mark.toISOString()],
      )
      expect(rows.map((r) => [r.method, r.status, r.mcp_tool])).toEqual([
        ['POST', 200, 'list_policies'],
        ['POST', 200, 'list_policies,check_api_health'],
        ['POST', 200, null],
        ['GET', 405, null],
      ])
      expect(rows[0].request_id).toBe(one.headers['x-request-id'])
      expect(rows[1].request_id).toBe(batch.headers['x-request-id'])
      expect(rows[2].request_id).toBe(unknown.headers['x-request-id'])
    } finally {
      await db.close()
    }
  })
})

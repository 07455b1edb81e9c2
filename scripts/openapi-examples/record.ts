// Records the examples of the OpenAPI document (`npm run openapi:examples` writes them to
// lib/openapi/examples.json). Each example request of each operation (`examples` in
// lib/*/operations.ts) and of the tool server (lib/openapi/mcp.ts) is sent to the route handler,
// in process, while every upstream service it calls is a loopback server replaying the recorded
// payloads in tests/fixtures/. The answers are therefore what our adapters and services make of
// those payloads, never written by hand. tests/integration/openapi-examples.test.ts records them
// again and fails when the committed file is stale.
import type { ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import { v5 as uuidv5 } from 'uuid'
import { loadZones } from '../../test-support/dns-zones'
import { startFakeDoh } from '../../test-support/fake-doh'
import { startFakeGhost, type FakeGhost } from '../../test-support/fake-ghost'
import { blobRef, createFakePds, postRecord, type FakeAccount } from '../../test-support/fake-pds'
import { fixture, fixtureJson, sendJson, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../../test-support/fake-upstream'
import type { RecordedAnswer, RecordedExamples } from '@/lib/openapi/examples'

export const EXAMPLES_FILE = fileURLToPath(new URL('../../lib/openapi/examples.json', import.meta.url))

const ORIGIN = 'https://api.example.com'
const INTERNAL_KEY = 'example-internal-key-0123456789abcdef'
const CLIENT_IP = '24.48.0.1'
const MONITOR = '258338'
const TENANT = '6babcaad-604b-40ac-a9d7-9fd97c0b779f'
const GRAPH_APP_TENANT = 'c0ffee00-0000-4000-8000-000000000001'
/** Namespace of the example request ids (uuid v5 of `operationId/name`), so every run gives the same ids. */
const REQUEST_ID_NAMESPACE = 'b7d1c4a2-52f4-4c59-9a51-2a4d26f0b3e1'

// ---- Upstream services replaying recorded payloads ----------------------------------------------

/** Accounts of the fake PDS: two with posts and blobs, one deactivated (listRepos is built to the lexicon; no recording exists). */
function pdsAccounts(): FakeAccount[] {
  const post = (iso: string) => postRecord(iso)
  return [
    {
      did: 'did:plc:ewvi7nxzyoun6zhxrhs64oiz',
      handle: 'atproto.com',
      records: {
        'app.bsky.feed.post': [
          post('2025-03-04T09:15:00.000Z'),
          post('2025-03-04T17:40:00.000Z'),
          post('2025-03-05T08:02:00.000Z'),
          {
            ...post('2025-06-21T12:00:00.000Z'),
            value: {
              $type: 'app.bsky.feed.post',
              text: 'two pictures',
              createdAt: '2025-06-21T12:00:00.000Z',
              embed: {
                $type: 'app.bsky.embed.images',
                images: [
                  { alt: 'a', image: blobRef('bafkreia', 182_113) },
                  { alt: 'b', image: blobRef('bafkreib', 96_420) },
                ],
              },
            },
          },
        ],
      },
      blobs: { bafkreia: 182_113, bafkreib: 96_420 },
    },
    {
      did: 'did:plc:wqgdnqlv2mwiio6pfchwtrff',
      handle: 'greenground.bsky.social',
      records: {
        'app.bsky.feed.post': [post('2025-03-05T21:30:00.000Z')],
        'app.bsky.actor.profile': [
          { rkey: 'self', value: { $type: 'app.bsky.actor.profile', displayName: 'Green Ground', avatar: blobRef('bafkreic', 41_877) } },
        ],
      },
      blobs: { bafkreic: 41_877 },
    },
    { did: 'did:plc:yk4dd2qkboz2yv6tpubpc6co', active: false, status: 'deactivated' },
  ]
}

async function startUpstreams() {
  const closers: (() => Promise<void>)[] = []
  const started = async (server: FakeUpstream) => (closers.push(() => server.close()), server)

  // ip-api.com: the recorded all-fields answer for 24.48.0.1, one address at a time or in a batch.
  const ipRecord = fixtureJson<{ query: string }>('ip-api/json-all-fields-24.48.0.1.json')
  const ipApi = await started(
    await startFakeUpstream((req, res) => {
      const answer = (ip: string) => (ip === ipRecord.query ? ipRecord : { status: 'fail', message: 'invalid query', query: ip })
      if (req.path === '/batch') return sendJson(res, 200, (JSON.parse(req.body.toString()) as string[]).map(answer), { 'X-Rl': '14', 'X-Ttl': '60' })
      sendJson(res, 200, answer(decodeURIComponent(req.path.replace(/^\/json\//, ''))), { 'X-Rl': '44', 'X-Ttl': '60' })
    }),
  )

  // Bluesky PDS, PLC directory and BetterStack on one server.
  const pds = createFakePds({
    accounts: pdsAccounts(),
    describeServer: fixture('atproto/describeServer-maitake.us-west.host.bsky.network.json'),
    health: fixture('atproto/health-pds-0.2.2-beta.2.json'),
    // The recorded resolveHandle answer is for bsky.app, whose DID document is not recorded; this
    // one has the same shape and names the account whose recorded PLC document lists the handle.
    resolve: { 'greenground.bsky.social': '{"did":"did:plc:wqgdnqlv2mwiio6pfchwtrff"}' },
  })
  const plcDocuments: Record<string, string> = {
    'did:plc:ewvi7nxzyoun6zhxrhs64oiz': fixture('atproto/plc-did-document-atproto.com-multikey.json'),
    'did:plc:wqgdnqlv2mwiio6pfchwtrff': fixture('atproto/plc-did-document-greenground.bsky.social-compact.json'),
  }
  const platform = await started(
    await startFakeUpstream((req, res) => {
      if (req.path.startsWith('/plc/')) {
        const did = decodeURIComponent(req.path.slice(5))
        return plcDocuments[did] ? sendJson(res, 200, plcDocuments[did]) : sendJson(res, 404, { message: `DID not registered: ${did}` })
      }
      if (req.path === `/api/v2/monitors/${MONITOR}/sla`) return sendJson(res, 200, fixture('betterstack/monitor-sla-200-docs-example.json'))
      return pds.handler(req, res)
    }),
  )

  // Ghost, seeded with the recorded demo post, plus two Message Center posts, one of them a duplicate.
  const ghost: FakeGhost = await startFakeGhost()
  closers.push(() => ghost.close())
  const messageCenter = {
    title: '(Updated) New feature: Changes to PowerPoint and Word to open files faster',
    tags: [{ id: '65f1c0a8e4b0a1000137a0a9', name: 'M365 Message Center', slug: 'm365-message-center' }],
  }
  ghost.addPost('mc172851', {
    ...messageCenter,
    id: '65f1c0a8e4b0a1000137a0b1',
    uuid: '2f5d1b9e-6a43-4c1e-9b7a-0d8e3c6f4a21',
    url: 'https://demo.ghost.io/mc172851/',
  })
  ghost.addPost('mc172851-2', {
    ...messageCenter,
    id: '65f1c0a8e4b0a1000137a0b2',
    uuid: '8c3e7a10-2d54-4f9b-a6e1-5b0f9d2c7e38',
    url: 'https://demo.ghost.io/mc172851-2/',
  })

  // Microsoft: sign-in discovery, Entra token, Graph tenant information and Message Center.
  const openId = fixture('microsoft-identity/openid-configuration-v2.0-tenant-sanitized-88888888.json').replaceAll(
    '88888888-8888-8888-8888-888888888888',
    TENANT,
  )
  const messages = [
    ...fixtureJson<{ value: unknown[] }>('microsoft-graph/serviceAnnouncement-messages-list-docs-example.json').value,
    ...fixtureJson<{ value: unknown[] }>('microsoft-graph/serviceAnnouncement-messages-list-value-4-real-messages.json').value,
  ]
  const microsoft = await started(
    await startFakeUpstream((req: ReceivedRequest, res: ServerResponse) => {
      const tenant = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(req.path)?.[1]
      if (tenant) {
        if (['contoso.com', TENANT].includes(decodeURIComponent(tenant).toLowerCase())) return sendJson(res, 200, openId)
        return sendJson(res, 400, fixture('microsoft-identity/openid-configuration-error-AADSTS90002-unknown-tenant-xyz.com.json'))
      }
      if (req.path === '/getuserrealm.srf') return sendJson(res, 200, fixture('microsoft-identity/getuserrealm-srf-json1-federated-bbc.co.uk.json'))
      if (req.path === '/common/GetCredentialType')
        return sendJson(res, 200, fixture('microsoft-identity/getcredentialtype-managed-exists-with-tenant-branding.json'))
      // Built from the documented client-credentials answer (no recorded token answer exists).
      if (req.path === `/${GRAPH_APP_TENANT}/oauth2/v2.0/token`)
        return sendJson(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: 'example-token' })
      if (decodeURIComponent(req.path) === `/v1.0/tenantRelationships/findTenantInformationByTenantId(tenantId='${TENANT}')`)
        return sendJson(res, 200, fixture('microsoft-graph/findTenantInformationByDomainName-docs-example-contoso.com.json'))
      if (req.path === '/v1.0/admin/serviceAnnouncement/messages') return sendJson(res, 200, { value: messages })
      sendJson(res, 404, fixture('microsoft-graph/serviceAnnouncement-error-resource-not-exist-for-tenant.json'))
    }),
  )

  // DNS over HTTPS from the zone fixtures, and the recorded MTA-STS policy of febit.eu.
  const doh = await startFakeDoh(loadZones('well-configured', 'providers', 'weak', 'platform', 'tenant-contoso'))
  closers.push(() => doh.close())
  const policies: Record<string, string> = {
    'febit.eu': 'mta-sts.febit.eu-enforce-wildcard-mx.txt',
    'weak.example': 'alexvernon-testing-mode-mx-trailing-dot.txt',
  }
  const mtaSts = await started(
    await startFakeUpstream((req, res) => {
      const file = policies[req.path.split('/')[1]]
      if (!file) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'text/plain' }).end(fixture(`mta-sts/${file}`))
    }),
  )
  const policyUrl = new RegExp(`${mtaSts.url.replace(/[.]/g, '\\.')}/([^/"]+)/\\.well-known/mta-sts\\.txt`, 'g')
  /** Answers name a policy's address: the one the default MTA_STS_URL_TEMPLATE gives, not this loopback server's. */
  const publicAddresses = (text: string, template: string) => text.replace(policyUrl, (_, domain: string) => template.replace('{domain}', domain))

  // Apple's device-management feed and the SOFA feeds.
  const feeds = await started(
    await startFakeUpstream((req, res) => {
      if (req.path === '/v2/pmv') return sendJson(res, 200, fixture('apple-gdmf/pmv-2026-08-22.json'))
      const sofa = /^\/sofa\/v2\/(macos|watchos|tvos)_data_feed\.json$/.exec(req.path)
      if (sofa) return sendJson(res, 200, fixture(`sofa/v2-${sofa[1]}_data_feed-2026-08-22.json`))
      sendJson(res, 404, { error: 'no such feed' })
    }),
  )

  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    PGLITE_DIR: 'memory://',
    // Generous: a loaded machine must not turn an example into a timeout.
    UPSTREAM_TIMEOUT_MS: '20000',
    PUBLIC_BASE_URL: ORIGIN,
    SUPPORT_EMAIL: 'support@example.com',
    SUPPORT_URL: 'https://example.com/support',
    INTERNAL_API_KEYS: INTERNAL_KEY,
    IP_API_URL: ipApi.url,
    PDS_URL: platform.url,
    PLC_URL: `${platform.url}/plc`,
    BETTERSTACK_API_URL: `${platform.url}/api/v2`,
    BETTERSTACK_API_TOKEN: 'example-token',
    BETTERSTACK_MONITOR_ID: MONITOR,
    GHOST_URL: ghost.url,
    GHOST_CONTENT_API_KEY: ghost.contentKey,
    GHOST_ADMIN_API_KEY: ghost.adminKey,
    MS_LOGIN_URL: microsoft.url,
    MS_GRAPH_URL: microsoft.url,
    MS_TENANT_ID: GRAPH_APP_TENANT,
    MS_CLIENT_ID: 'example-client',
    MS_CLIENT_SECRET: 'example-secret',
    DOH_URL: doh.url,
    MTA_STS_URL_TEMPLATE: `${mtaSts.url}/{domain}/.well-known/mta-sts.txt`,
    PLATFORM_DOMAINS: 'febit.eu,platform.example',
    APPLE_GDMF_URL: `${feeds.url}/v2/pmv`,
    SOFA_FEED_URL: `${feeds.url}/sofa/v2`,
    BOOKINGS_USERS: 'adele.vance',
    BOOKINGS_URL_TEMPLATE: 'https://outlook.office.com/book/{user}@contoso.com/',
  }
  return { env, publicAddresses, close: () => Promise.all(closers.map((close) => close())).then(() => undefined) }
}

// ---- Recording -----------------------------------------------------------------------------------

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>

async function answerOf(res: Response, publicAddresses: (text: string) => string): Promise<RecordedAnswer> {
  const type = res.headers.get('content-type') ?? ''
  const location = res.headers.get('location')
  return {
    status: res.status,
    ...(type.includes('json') ? { body: JSON.parse(publicAddresses(await res.text())) } : {}),
    ...(location ? { headers: { Location: location } } : {}),
  }
}

/** Starts the recorded upstreams, points the configuration at them and records every example answer. */
export async function recordExamples(): Promise<RecordedExamples> {
  const upstreams = await startUpstreams()
  try {
    // The configuration is read once, when its module is first imported: set it before any import.
    Object.assign(process.env, upstreams.env)
    const { operations } = await import('@/lib/operations')
    const { MCP_EXAMPLES } = await import('@/lib/openapi/mcp')
    const { handleMcpPost } = await import('@/lib/mcp/http')
    const { INTERNAL_KEY_HEADER } = await import('@/lib/http/headers')
    const { CLIENT_IP_HEADER, REQUEST_ID_HEADER } = await import('@/lib/http/headers')
    const { loadConfig } = await import('@/lib/config')
    const defaultTemplate = loadConfig({}).MTA_STS_URL_TEMPLATE
    const publicAddresses = (text: string) => upstreams.publicAddresses(text, defaultTemplate)
    // The embedded database starts before the health example asks whether it is up.
    await (await import('@/lib/db/client')).getReadyDatabase()

    const recorded: RecordedExamples = { operations: {}, mcp: {} }
    for (const op of operations) {
      if (!op.examples?.length) continue
      const file = `../../app/api${op.path.replace(/\{(\w+)\}/g, '[$1]')}/route.ts`
      const handler = (await import(file))[op.method] as Handler
      const answers: Record<string, RecordedAnswer> = {}
      for (const example of op.examples) {
        let path = op.path
        for (const [name, value] of Object.entries(example.params ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value))
        const url = new URL(`/api${path}`, ORIGIN)
        for (const [name, value] of Object.entries(example.query ?? {})) url.searchParams.set(name, value)
        const body = example.body === undefined ? undefined : JSON.stringify(example.body)
        const headers: Record<string, string> = {
          [REQUEST_ID_HEADER]: uuidv5(`${op.operationId}/${example.name}`, REQUEST_ID_NAMESPACE),
          [CLIENT_IP_HEADER]: CLIENT_IP,
          ...(op.internal ? { [INTERNAL_KEY_HEADER]: INTERNAL_KEY } : {}),
          // As a client sends it: the route reads a body only when its length or chunking is declared.
          ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
        }
        const request = new Request(url, { method: op.method, headers, body })
        answers[example.name] = await answerOf(await handler(request, { params: Promise.resolve(example.params ?? {}) }), publicAddresses)
      }
      recorded.operations[op.operationId] = answers
    }
    for (const example of MCP_EXAMPLES.filter((e) => e.answerShown !== false)) {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        [REQUEST_ID_HEADER]: uuidv5(`callMcp/${example.name}`, REQUEST_ID_NAMESPACE),
        [CLIENT_IP_HEADER]: CLIENT_IP,
        ...example.headers,
      }
      const body = example.rawBody?.() ?? JSON.stringify(example.message)
      const request = new Request(new URL('/api/mcp', ORIGIN), {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        body,
      })
      recorded.mcp[example.name] = await answerOf(await handleMcpPost(request), publicAddresses)
    }
    return recorded
  } finally {
    await upstreams.close()
  }
}

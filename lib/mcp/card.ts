import 'server-only'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import pkg from '@/package.json'
import { config } from '@/lib/config'
import { conditionalJson } from '@/lib/http/conditional'
import { envelope } from '@/lib/http/envelope'
import { MODERN_PROTOCOL_VERSION } from '@/lib/mcp/protocol'
import { SERVER_IDENTITY } from '@/lib/mcp/server'
import { tools } from '@/lib/mcp/tools'

// How the tool server describes itself before anyone connects (SEP-2127 and the discovery document
// of modelcontextprotocol/experimental-ext-server-card):
// - the server card at <endpoint>/server-card, GET /api/mcp/server-card (the old address
//   /.well-known/mcp/server-card.json answers the same): identity, the endpoint and the revisions
//   it speaks. A card lists no tools (clients list them at run time); its name, version and
//   endpoint agree with what server/discover answers (tests/integration/mcp-2026.test.ts);
// - the AI Catalog at /.well-known/ai-catalog.json, the domain's list of cards (here one);
// - server.json in the repository root, for the MCP Registry (scripts/mcp-server-json.ts writes it),
//   which lists the tools under the publisher-provided `_meta` key the Registry defines.
// The card and the catalog are public, read-only and change only with a deploy: any origin may read
// them, caches keep them an hour and revalidate with their ETag (lib/http/conditional.ts).

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json'
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json'
const PUBLISHER_META = 'io.modelcontextprotocol.registry/publisher-provided'

/** The revisions /api/mcp speaks, newest first: 2026-07-28 (lib/mcp/modern.ts), then those SDK 1.x negotiates with initialize. */
export const SPOKEN_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS]

const DESCRIPTION = 'Read-only tools: domain DNS and mail-security checks, Bluesky PDS statistics, API health, policies.'

/** `https://api.example.com` → `com.example.api/utility-api` (the Registry's reverse-DNS name of a remote server). */
export function registryName(baseUrl: string): string {
  return `${new URL(baseUrl).hostname.split('.').reverse().join('.')}/${SERVER_IDENTITY.name}`
}

const toolSummaries = () => tools.map((t) => ({ name: t.name, title: t.title }))

const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json'
const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json'
/** Where the card lives: the streamable-HTTP endpoint's URL with /server-card appended. */
export const SERVER_CARD_PATH = '/api/mcp/server-card'

/**
 * The caching the discovery document asks of a hosted card (and that suits the catalog). Its CORS
 * headers (any origin, GET, If-None-Match allowed, ETag exposed) are the API gate's, which answers
 * them for every public path (lib/gate/api.ts).
 */
const DISCOVERY_HEADERS = { 'cache-control': 'public, max-age=3600' }

function remote(baseUrl: string) {
  return { type: 'streamable-http' as const, url: new URL('/api/mcp', baseUrl).toString() }
}

export function serverCard(baseUrl: string) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: registryName(baseUrl),
    version: pkg.version,
    description: DESCRIPTION,
    title: SERVER_IDENTITY.title,
    websiteUrl: new URL('/', baseUrl).toString(),
    remotes: [{ ...remote(baseUrl), supportedProtocolVersions: SPOKEN_PROTOCOL_VERSIONS }],
  }
}

/** `https://api.example.com` → `urn:air:api.example.com:mcp:utility-api` (the catalog's domain-anchored identifier). */
function catalogIdentifier(baseUrl: string): string {
  return `urn:air:${new URL(baseUrl).hostname}:mcp:${SERVER_IDENTITY.name}`
}

/** The AI Catalog of this host: one entry, pointing at the card (the entry repeats none of the card's fields). */
export function aiCatalog(baseUrl: string) {
  return {
    specVersion: '1.0',
    entries: [{ identifier: catalogIdentifier(baseUrl), type: SERVER_CARD_MEDIA_TYPE, url: new URL(SERVER_CARD_PATH, baseUrl).toString() }],
  }
}

export function serverJson(baseUrl: string) {
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: registryName(baseUrl),
    title: SERVER_IDENTITY.title,
    description: DESCRIPTION,
    version: pkg.version,
    websiteUrl: new URL('/', baseUrl).toString(),
    remotes: [remote(baseUrl)],
    _meta: { [PUBLISHER_META]: { supportedProtocolVersions: SPOKEN_PROTOCOL_VERSIONS, tools: toolSummaries() } },
  }
}

/** GET of the card (at `route`: its address or the old alias), with its ETag, in the request envelope (request id, request log). */
export function serveServerCard(route: string) {
  return (request: Request) =>
    envelope(request, { route, record: true }, async () =>
      conditionalJson(request, serverCard(config.PUBLIC_BASE_URL), SERVER_CARD_MEDIA_TYPE, DISCOVERY_HEADERS),
    )
}

// GET /.well-known/ai-catalog.json - the host's AI Catalog, pointing at the server card
export function serveAiCatalog(request: Request) {
  return envelope(request, { route: '/.well-known/ai-catalog.json', record: true }, async () =>
    conditionalJson(request, aiCatalog(config.PUBLIC_BASE_URL), AI_CATALOG_MEDIA_TYPE, DISCOVERY_HEADERS),
  )
}

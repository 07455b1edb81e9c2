import 'server-only'
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import pkg from '@/package.json'
import { MODERN_PROTOCOL_VERSION } from '@/lib/mcp/protocol'
import { SERVER_IDENTITY } from '@/lib/mcp/server'
import { tools } from '@/lib/mcp/tools'

// How the tool server describes itself before anyone connects, generated from the tool registry:
// - the server card served at /.well-known/mcp/server-card.json (SEP-2127, the schema of
//   modelcontextprotocol/experimental-ext-server-card), for clients and crawlers of this instance;
// - server.json in the repository root, for the MCP Registry (scripts/mcp-server-json.ts writes it).
// Neither format has a field for tools, so both list them under the publisher-provided `_meta` key
// the Registry defines; tests/integration/mcp-2026.test.ts checks both against tools/list.

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
    _meta: { [PUBLISHER_META]: { tools: toolSummaries() } },
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

import 'server-only'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import pkg from '@/package.json'
import { registerReadOnlyTool, type McpRequestContext } from '@/lib/mcp/tool'
import { tools } from '@/lib/mcp/tools'

export const INSTRUCTIONS =
  "Read-only tools over the Utility API: a DNS and mail-security check of any domain and the list of the platform's domains; statistics of the platform's Bluesky PDS (repositories, handle availability, posts per day, blob storage); the API's own health and the platform policies. " +
  'Each result carries structured content and the same JSON as text after a one-line summary. A failed call comes back as a result with isError whose text says whether to change the arguments or retry.'

export const SERVER_IDENTITY = { name: 'utility-api', title: 'Utility API' } as const

/** A server with every tool registered; the transport is stateless, so each request gets its own. */
export function createMcpServer(ctx: McpRequestContext): McpServer {
  const server = new McpServer({ ...SERVER_IDENTITY, version: pkg.version }, { instructions: INSTRUCTIONS })
  for (const tool of tools) registerReadOnlyTool(server, tool, ctx)
  // The SDK advertises tools.listChanged, but a stateless server has no stream to send the
  // notification on, and the tool list never changes while it runs.
  server.server.registerCapabilities({ tools: { listChanged: false } })
  return server
}

import 'server-only'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import pkg from '@/package.json'
import { REQUEST_ID_HEADER } from '@/lib/http/headers'
import { log } from '@/lib/log'
import { TOOL_LIST_CACHE_HINT } from '@/lib/mcp/cache'
import { INSTRUCTIONS, SERVER_IDENTITY } from '@/lib/mcp/server'
import { callTool, toolDefinition, type McpRequestContext } from '@/lib/mcp/tool'
import { tools } from '@/lib/mcp/tools'

// The 2026-07-28 revision of /api/mcp, served by the official v2 server package
// (@modelcontextprotocol/server): no initialize and no session, the protocol version and client
// capabilities in each request's `_meta`, server/discover, `resultType` on every result,
// `ttlMs`/`cacheScope` on tools/list, the Mcp-Method / Mcp-Name header checks (-32020) and
// UnsupportedProtocolVersion (-32022). The tools are the same registry (lib/mcp/tools) the 2025
// server registers, called through the same `callTool`, so both eras answer a tools/call with the
// same structured content. lib/mcp/http.ts decides which era a request belongs to.

function createModernServer(ctx: McpRequestContext): McpServer {
  const server = new McpServer(
    { ...SERVER_IDENTITY, version: pkg.version },
    {
      instructions: INSTRUCTIONS,
      // Logging only answers a request that asks for it with `_meta` io.modelcontextprotocol/logLevel.
      capabilities: { tools: { listChanged: false }, logging: {} },
      cacheHints: { 'tools/list': TOOL_LIST_CACHE_HINT, 'server/discover': TOOL_LIST_CACHE_HINT },
    },
  )
  for (const tool of tools)
    server.registerTool(tool.name, toolDefinition(tool), async (args, extra) => {
      const started = performance.now()
      const result = await callTool(tool, args, ctx)
      // Sent only when the request set a log level (the SDK drops it otherwise, as the revision requires).
      await extra.mcpReq.log(
        result.isError ? 'warning' : 'debug',
        { tool: tool.name, ms: Math.round(performance.now() - started), isError: Boolean(result.isError) },
        'utility-api',
      )
      return result
    })
  return server
}

/**
 * One handler for every 2026-07-28 request; each request gets a fresh server (the revision is
 * stateless). 2025-era traffic never reaches it (lib/mcp/http.ts routes it to SDK 1.x), and
 * `legacy: 'reject'` makes sure of that. The request id comes from the header lib/mcp/http.ts sets.
 */
export const modernMcp = createMcpHandler((ctx) => createModernServer({ requestId: ctx.requestInfo?.headers.get(REQUEST_ID_HEADER) ?? 'unknown' }), {
  legacy: 'reject',
  onerror: (error) => log.debug('mcp 2026 request refused', { error: error.message }),
})

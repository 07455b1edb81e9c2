import { handleMcpPost, refuseMcpMethod } from '@/lib/mcp/http'

export const dynamic = 'force-dynamic'

// POST /api/mcp - MCP tool server: JSON-RPC 2.0 over stateless streamable HTTP
export const POST = handleMcpPost

// GET, DELETE, PUT and PATCH /api/mcp - 405 with Allow: POST (no event stream, no session)
export { refuseMcpMethod as GET, refuseMcpMethod as DELETE, refuseMcpMethod as PUT, refuseMcpMethod as PATCH }

import { SERVER_CARD_PATH, serveServerCard } from '@/lib/mcp/card'

export const dynamic = 'force-dynamic'

// GET /api/mcp/server-card - the MCP server card (SEP-2127) at <endpoint>/server-card: identity,
// the /api/mcp endpoint and the revisions it speaks; ETag, 304 on If-None-Match, open to any origin
export const GET = serveServerCard(SERVER_CARD_PATH)

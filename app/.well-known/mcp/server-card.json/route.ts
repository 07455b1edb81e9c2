import { config } from '@/lib/config'
import { API_DESCRIPTION_CACHE_CONTROL } from '@/lib/mcp/cache'
import { serverCard } from '@/lib/mcp/card'

export const dynamic = 'force-dynamic'

// GET /.well-known/mcp/server-card.json - the MCP server card (SEP-2127): identity, the /api/mcp
// endpoint and the protocol revisions it speaks, readable by any page (the card is public).
export function GET() {
  return Response.json(serverCard(config.PUBLIC_BASE_URL), {
    headers: {
      'content-type': 'application/json',
      'cache-control': API_DESCRIPTION_CACHE_CONTROL,
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET',
    },
  })
}

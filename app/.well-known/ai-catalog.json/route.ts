import { serveAiCatalog } from '@/lib/mcp/card'

export const dynamic = 'force-dynamic'

// GET /.well-known/ai-catalog.json - domain-level discovery: the AI Catalog listing the MCP server card
export const GET = serveAiCatalog

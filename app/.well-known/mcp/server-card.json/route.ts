import { serveServerCard } from '@/lib/mcp/card'

export const dynamic = 'force-dynamic'

// GET /.well-known/mcp/server-card.json - the server card's first address, kept for the clients
// that read it: the same document as GET /api/mcp/server-card, which the AI Catalog points at
export const GET = serveServerCard('/.well-known/mcp/server-card.json')

import { NextResponse, type NextRequest } from 'next/server'
import { queryGate } from '@/lib/gate/query'
import { isQueryAppHost } from '@/lib/access/query-host'
import { edgeResponse, forwardedHeaders } from '@/lib/gate/edges'
import { addCorsPolicy, apiGate } from '@/lib/gate/api'
import { requestIdFrom } from '@/lib/http/request-id'
import { mcpCorsOrigin } from '@/lib/mcp/origin'
import { REQUEST_ID_HEADER } from '@/lib/http/headers'
import { addSecurityHeaders, requestPolicy } from '@/lib/gate/security-headers'

// A dispatcher: on QUERY_APP_HOST every path belongs to the query application (rewritten into
// /query by its gate); elsewhere /api/* and /.well-known/* (the AI Catalog, the MCP server card's
// old address) pass the public API's gate (rate limit, internal key) and /query/* the query
// application's (access policy, same origin). Every other page only gets its request id, so that
// every response carries one.

// Short names of the API's documents. Answered here rather than in next.config.ts, whose redirects
// run before the proxy and so would carry no request id.
// The proxy's wiring: the MCP endpoint's CORS policy (its DNS-rebinding protection's origins). Its
// server card (/api/mcp/server-card) is public metadata, open to every origin like the API.
addCorsPolicy((path, headers) => (path === '/api/mcp' ? mcpCorsOrigin(headers) : undefined))

const REDIRECTS: Record<string, string> = { '/docs': '/api/docs', '/openapi.json': '/api/openapi.json' }

export async function proxy(req: NextRequest) {
  // Next takes a page's nonce from the request's Content-Security-Policy (set here, forwarded by
  // every gate); every response leaves with the security headers (lib/gate/security-headers.ts).
  const policy = requestPolicy(isQueryAppHost(req.headers.get('host')) ? '/query' : req.nextUrl.pathname, req.headers)
  return addSecurityHeaders(await dispatch(req), policy)
}

async function dispatch(req: NextRequest): Promise<Response> {
  const path = req.nextUrl.pathname
  const requestId = requestIdFrom(req.headers)
  const edge = edgeResponse(req, requestId)
  if (edge) return edge
  if (isQueryAppHost(req.headers.get('host'))) return queryGate(req, { rewrite: true, requestId })
  if (path === '/api' || path.startsWith('/api/') || path.startsWith('/.well-known/')) return apiGate(req, requestId)
  if (path === '/query' || path.startsWith('/query/')) return queryGate(req, { requestId })
  const target = REDIRECTS[path]
  // Pages see the id too (the not-found page quotes it).
  const headers = forwardedHeaders(req)
  headers.set(REQUEST_ID_HEADER, requestId)
  const res = target ? NextResponse.redirect(new URL(target, req.url), 307) : NextResponse.next({ request: { headers } })
  res.headers.set(REQUEST_ID_HEADER, requestId)
  return res
}

// Everything but the build's static assets.
export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon\\.ico).*)'],
}

import { NextResponse, type NextRequest } from 'next/server'
import { queryGate } from '@/lib/access/gate'
import { isQueryAppHost } from '@/lib/access/query-host'
import { apiGate } from '@/lib/http/gate'

// A dispatcher: on QUERY_APP_HOST every path belongs to the query application (rewritten into
// /query by its gate); elsewhere /api/* passes the public API's gate (rate limit, internal key) and
// /query/* the query application's (access policy, same origin). Anything else is untouched.
export async function proxy(req: NextRequest) {
  const path = req.nextUrl.pathname
  if (isQueryAppHost(req.headers.get('host'))) return queryGate(req, { rewrite: true })
  if (path === '/api' || path.startsWith('/api/')) return apiGate(req)
  if (path === '/query' || path.startsWith('/query/')) return queryGate(req)
  return NextResponse.next()
}

// Static, so it must list the query application's own paths as they appear on QUERY_APP_HOST
// (`/`, `/dashboard`, `/export`, `/ingest/*`) besides /api and /query.
export const config = {
  matcher: ['/', '/dashboard', '/export', '/ingest/:path*', '/api', '/api/:path*', '/query', '/query/:path*'],
}

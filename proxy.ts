import { NextResponse, type NextRequest } from 'next/server'
import { apiGate, forwardIdentity, requestIdFrom } from '@/lib/http/gate'
import { clientIpFrom } from '@/lib/http/client-ip'

// The gate only: every /api request passes the rate limit and key checks in lib/http/gate.ts;
// query-application requests get the same request id and client-IP headers.
export async function proxy(req: NextRequest) {
  const path = req.nextUrl.pathname
  if (path === '/api' || path.startsWith('/api/')) return apiGate(req)
  const requestId = requestIdFrom(req.headers)
  const res = NextResponse.next({ request: { headers: forwardIdentity(req, requestId, clientIpFrom(req.headers)) } })
  res.headers.set('x-request-id', requestId)
  return res
}

export const config = {
  matcher: ['/api', '/api/:path*', '/query', '/query/:path*'],
}

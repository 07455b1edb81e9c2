import 'server-only'
import { NextResponse, type NextRequest } from 'next/server'
import { admitRequest, type AccessResult } from '@/lib/access/policy'
import { internalQueryPath, QUERY_HOME_HEADER, QUERY_PREFIX } from '@/lib/access/query-host'
import { clientIpFrom } from '@/lib/http/client-ip'
import { ERROR_STATUS, errorBody } from '@/lib/http/errors'
import { forwardIdentity, requestIdFrom } from '@/lib/http/gate'
import { REQUEST_ID_HEADER } from '@/lib/http/route'
import { log } from '@/lib/log'

// The proxy's part of the query application: request id and client IP, the same-origin rule for
// POSTs and the access policy, before any page or route runs. Pages and routes check access again
// (lib/access/server.ts), so a matcher that misses a path does not open it. No CORS headers, ever.

// The app is internal: never framed, never leaking its URLs (filters, ranges) to other sites.
const SECURITY_HEADERS = { 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin', 'x-content-type-options': 'nosniff' }
const INGEST = `${QUERY_PREFIX}/ingest/`

type Denial = Extract<AccessResult, { ok: false }>

/** The response to a refused request: the error envelope for the API, a short page otherwise. */
export function denialResponse(path: string, denial: Pick<Denial, 'code' | 'reason'>, requestId: string): Response {
  const status = ERROR_STATUS[denial.code]
  const headers = { ...SECURITY_HEADERS, [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' }
  if (path.startsWith(`${QUERY_PREFIX}/api/`)) return NextResponse.json(errorBody('envelope', denial.code, denial.reason, requestId), { status, headers })
  const html = `<!doctype html><meta charset="utf-8"><title>${status}</title><h1>Access refused (${status})</h1><p>${escapeHtml(denial.reason)}</p><p>Request id: ${requestId}</p>`
  return new Response(html, { status, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } })
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function logDenial(requestId: string, path: string, method: string, denial: Pick<Denial, 'code' | 'why'>) {
  log.warn('query access refused', { requestId, method, path, status: ERROR_STATUS[denial.code], why: denial.why })
}

/**
 * Gate for /query/** (and, with `rewrite`, for every path on QUERY_APP_HOST, mapped into /query).
 * The Logpush ingest endpoint skips the policy: it has its own shared secret.
 */
export async function queryGate(req: NextRequest, { rewrite = false, requestId = requestIdFrom(req.headers) } = {}): Promise<Response> {
  const path = rewrite ? internalQueryPath(req.nextUrl.pathname) : req.nextUrl.pathname
  if (!path.startsWith(INGEST)) {
    const access = await admitRequest(req)
    if (!access.ok) {
      logDenial(requestId, path, req.method, access)
      return denialResponse(path, access, requestId)
    }
  }
  const headers = forwardIdentity(req, requestId, clientIpFrom(req.headers))
  headers.set(QUERY_HOME_HEADER, rewrite ? '/' : QUERY_PREFIX)
  const init = { request: { headers } }
  // Relative to req.url, not nextUrl: nextUrl spells 127.0.0.1 as localhost, and a rewrite to
  // another origin would be proxied over HTTP instead of served in place.
  const res = rewrite ? NextResponse.rewrite(new URL(`${path}${req.nextUrl.search}`, req.url), init) : NextResponse.next(init)
  for (const [k, v] of Object.entries({ ...SECURITY_HEADERS, [REQUEST_ID_HEADER]: requestId })) res.headers.set(k, v)
  return res
}

import 'server-only'
import { NextResponse, type NextRequest } from 'next/server'
import { errorBody } from '@/lib/http/errors'
import { REQUEST_ID_HEADER } from '@/lib/http/headers'
import { operationsAt } from '@/lib/operations'

// Answers the proxy gives before any gate, for every path, so each carries a request id and the
// error envelope: the trailing-slash redirect (next.config.ts leaves it to us, since Next's own
// runs before the proxy) and a path whose percent-encoding does not decode (Next would answer a
// bare 500 while decoding route parameters).

export function pathIsDecodable(path: string): boolean {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

/** The error shape of the operation at `path` (any method), the envelope elsewhere. */
function formatAt(path: string) {
  return path.startsWith('/api/') ? (operationsAt(path)[0]?.errorFormat ?? 'envelope') : 'envelope'
}

export function edgeResponse(req: NextRequest, requestId: string): Response | null {
  const path = req.nextUrl.pathname
  if (path.length > 1 && path.endsWith('/')) {
    const target = new URL(req.url)
    target.pathname = path.replace(/\/+$/, '') || '/'
    const res = NextResponse.redirect(target, 308)
    res.headers.set(REQUEST_ID_HEADER, requestId)
    return res
  }
  if (!pathIsDecodable(path)) {
    const message = 'The path is not valid percent-encoding (for example %FF alone is not UTF-8); encode parameters with encodeURIComponent.'
    return NextResponse.json(errorBody(formatAt(path), 'invalid_input', message, requestId), {
      status: 400,
      headers: { [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' },
    })
  }
  return null
}

/**
 * Request headers as forwarded to pages and routes. `If-None-Match: *` is dropped: it asks whether
 * any representation exists, which Next's cached pages (the 404 page included) would answer with an
 * empty 304; we never serve conditional requests on that basis.
 */
export function forwardedHeaders(req: NextRequest): Headers {
  const headers = new Headers(req.headers)
  if (headers.get('if-none-match')?.trim() === '*') headers.delete('if-none-match')
  return headers
}

import 'server-only'
import { NextResponse, type NextRequest } from 'next/server'
import { isListeningAuthority, LOCAL_KEY_PARAM, localKeyCookie, localKeyCookieName, localOperatorState } from '@/lib/access/local-operator'
import { accessMode, admitRequest, checkAccess, type AccessResult } from '@/lib/access/policy'
import { internalQueryPath, QUERY_PREFIX } from '@/lib/access/query-host'
import { QUERY_HOME_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import { describeRefusal, logDenial, type Refusal } from '@/lib/access/refusal'
import { clientIpFrom } from '@/lib/http/client-ip'
import { errorBody } from '@/lib/http/errors'
import { ERROR_STATUS } from '@/lib/errors'
import { forwardIdentity, requestIdFrom } from '@/lib/gate/api'

// The proxy's part of the query application: request id and client IP, the same-origin rule for
// POSTs and the access policy, before any page or route runs. Pages and routes check access again
// (lib/access/server.ts), so a matcher that misses a path does not open it. No CORS headers, ever.

// The app is internal: never framed, never leaking its URLs (filters, ranges) to other sites.
const SECURITY_HEADERS = { 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin', 'x-content-type-options': 'nosniff' }
const INGEST = `${QUERY_PREFIX}/ingest/`

type Denial = Extract<AccessResult, { ok: false }>

/** The response to a refused request: the error envelope for the API, a page otherwise. */
export function denialResponse(path: string, denial: Pick<Denial, 'code' | 'reason'>, requestId: string): Response {
  const status = ERROR_STATUS[denial.code]
  const headers = { ...SECURITY_HEADERS, [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' }
  if (path.startsWith(`${QUERY_PREFIX}/api/`)) return NextResponse.json(errorBody('envelope', denial.code, denial.reason, requestId), { status, headers })
  return new Response(refusalPage(status, describeRefusal(denial), requestId), { status, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } })
}

// The proxy answers before the application renders anything, so this page carries its own small
// stylesheet: the application's colours and type, light and dark.
const PAGE_STYLE = `:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#fff;--card:#f6f8fa;--border:#d0d7de;--accent:#0969da;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--card:#161b22;--border:#30363d;--accent:#4493f8}}
body{margin:0;padding:0 1rem;background:var(--bg);color:var(--fg);line-height:1.5}header{max-width:40rem;margin:0 auto;padding:.75rem 1rem;font-weight:700}
main{max-width:40rem;margin:1.5rem auto;padding:1.5rem;border:1px solid var(--border);border-radius:.6rem;background:var(--card)}
h1{font-size:1.3rem;margin:0 0 .5rem}h2{font-size:1rem;margin:1.25rem 0 .25rem}.code{color:var(--muted);font-size:.85rem;margin:0}code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}a{color:var(--accent)}`

function refusalPage(status: number, refusal: Refusal, requestId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(refusal.title)} · Query application</title><style>${PAGE_STYLE}</style></head>
<body><header>Query application</header><main><p class="code">Error ${status}</p><h1>${escapeHtml(refusal.title)}</h1><p>${escapeHtml(refusal.what)}</p><h2>What to do next</h2><p>${escapeHtml(refusal.next)}</p><p class="code">Request id: <code>${escapeHtml(requestId)}</code></p></main></body></html>`
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The link server.mjs prints (`/query?key=…`): when every other condition of the local operator
 * holds, the request names this server's own loopback host and port, and the key is this start's,
 * the key moves into an HttpOnly, SameSite=Strict cookie named for the port, and the browser goes
 * on to the same address without it (so the key stays out of history and Referer). A wrong key,
 * another Host, or any other refusal, falls through to the usual refusal.
 */
async function openKeyLink(req: NextRequest, requestId: string): Promise<Response | null> {
  const key = req.nextUrl.searchParams.get(LOCAL_KEY_PARAM)
  if (key === null || req.method !== 'GET') return null
  const mode = accessMode()
  const state = localOperatorState()
  if (mode.kind !== 'local' || !state?.origin || !isListeningAuthority(req.headers.get('host'), state)) return null
  const cookieName = localKeyCookieName(state)
  const cookies = { get: (name: string) => (name === cookieName ? { value: key } : req.cookies.get(name)) }
  const access = await checkAccess({ headers: req.headers, cookies }, mode)
  if (!access.ok) return null
  const clean = new URLSearchParams(req.nextUrl.searchParams)
  clean.delete(LOCAL_KEY_PARAM)
  const search = clean.size ? `?${clean}` : ''
  // Built on the listening origin, never on Host. Next writes a redirect to the request's own
  // origin as a path (every loopback name counts as one), so the browser stays on the loopback
  // name it used, where the cookie is.
  const location = new URL(`${req.nextUrl.pathname}${search}`, state.origin)
  const res = NextResponse.redirect(location, 303)
  for (const [k, v] of Object.entries({
    ...SECURITY_HEADERS,
    'set-cookie': localKeyCookie(state),
    [REQUEST_ID_HEADER]: requestId,
    'cache-control': 'no-store',
  }))
    res.headers.set(k, v)
  return res
}

/**
 * Gate for /query/** (and, with `rewrite`, for every path on QUERY_APP_HOST, mapped into /query).
 * The Logpush ingest endpoint skips the policy: it has its own shared secret.
 */
export async function queryGate(req: NextRequest, { rewrite = false, requestId = requestIdFrom(req.headers) } = {}): Promise<Response> {
  const path = rewrite ? internalQueryPath(req.nextUrl.pathname) : req.nextUrl.pathname
  const keyLink = await openKeyLink(req, requestId)
  if (keyLink) return keyLink
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

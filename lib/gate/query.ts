import 'server-only'
import { NextResponse, type NextRequest } from 'next/server'
import { isListeningAuthority, LOCAL_KEY_PARAM, localKeyCookie, localKeyCookieName, localOperatorState } from '@/lib/access/local-operator'
import { accessMode, admitRequest, checkAccess, type Identity } from '@/lib/access/policy'
import { internalQueryPath, QUERY_PREFIX } from '@/lib/access/query-host'
import { QUERY_HOME_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import { describeRefusal, logDenial, type Refusal, type RefusalCode } from '@/lib/access/refusal'
import { addressBucket, clientIpFrom } from '@/lib/http/client-ip'
import { errorBody } from '@/lib/http/errors'
import { ERROR_STATUS } from '@/lib/errors'
import { config } from '@/lib/config'
import { checkIngestSecret } from '@/lib/ingest/secret'
import { authFailureMessage, getLimiter, type LimitPolicy, type LimitResult } from '@/lib/ratelimit/limiter'
import { forwardIdentity, rateLimitHeaders, retryAfterOf } from '@/lib/gate/api'
import { requestIdFrom } from '@/lib/http/request-id'
import { countRateLimitDenial } from '@/lib/telemetry/telemetry'

// The proxy's part of the query application: request id and client IP, the same-origin rule for
// POSTs, the access policy and the rate limit, before any page or route runs. Pages and routes
// check access again (lib/access/server.ts), so a matcher that misses a path does not open it. No
// CORS headers, ever.
//
// The rate limit counts per identity (the access policy's user, or the local operator), so people
// behind one address do not share a quota; what has no identity (a refused request, the Logpush
// ingest) counts per address. A wrong or missing ingest secret also counts as a failed
// authentication, whose small quota stops guessing at a 429.

// The app is internal: never framed, never leaking its URLs (filters, ranges) to other sites.
const SECURITY_HEADERS = { 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin', 'x-content-type-options': 'nosniff' }
const INGEST = `${QUERY_PREFIX}/ingest/`

/** The response to a refused request: the error envelope for the API and ingest, a page otherwise. */
export function denialResponse(path: string, denial: { code: RefusalCode; reason: string }, requestId: string, extra: Record<string, string> = {}): Response {
  const status = ERROR_STATUS[denial.code]
  const headers = { ...SECURITY_HEADERS, ...extra, [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' }
  if (path.startsWith(`${QUERY_PREFIX}/api/`) || path.startsWith(INGEST))
    return NextResponse.json(errorBody('envelope', denial.code, denial.reason, requestId), { status, headers })
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
  const clientIp = clientIpFrom(req.headers)
  const bucket = addressBucket(clientIp)
  const address = `address:${bucket}`
  const limited = (r: LimitResult, message: string, policy: LimitPolicy = 'query') => {
    countRateLimitDenial(policy)
    return denialResponse(path, { code: 'rate_limited', reason: message }, requestId, { ...rateLimitHeaders(r, policy), 'Retry-After': retryAfterOf(r) })
  }
  let key = address
  if (path.startsWith(INGEST)) {
    // Refused before the secret is looked at once the address guessed too often, so that the
    // right guess does not stand out from the 429s.
    const failures = getLimiter('auth-failure')
    const blocked = await failures.check(bucket)
    if (!blocked.success) return limited(blocked, authFailureMessage(blocked.limit, config.RATE_LIMIT_WINDOW_S, retryAfterOf(blocked)), 'auth-failure')
    try {
      checkIngestSecret(req.headers)
    } catch {
      // The route answers the refusal itself; here it is only counted.
      await failures.limit(bucket)
    }
  } else {
    const access = await admitRequest(req)
    if (!access.ok) {
      const r = await getLimiter('query').limit(address)
      if (!r.success) return limited(r, queryLimitMessage(r))
      logDenial(requestId, path, req.method, access)
      return denialResponse(path, access, requestId)
    }
    key = identityKey(access.identity)
  }
  const r = await getLimiter('query').limit(key)
  if (!r.success) return limited(r, queryLimitMessage(r))
  const headers = forwardIdentity(req, requestId, clientIp)
  headers.set(QUERY_HOME_HEADER, rewrite ? '/' : QUERY_PREFIX)
  const init = { request: { headers } }
  // Relative to req.url, not nextUrl: nextUrl spells 127.0.0.1 as localhost, and a rewrite to
  // another origin would be proxied over HTTP instead of served in place.
  const res = rewrite ? NextResponse.rewrite(new URL(`${path}${req.nextUrl.search}`, req.url), init) : NextResponse.next(init)
  for (const [k, v] of Object.entries({ ...SECURITY_HEADERS, ...rateLimitHeaders(r, 'query'), [REQUEST_ID_HEADER]: requestId })) res.headers.set(k, v)
  return res
}

/** The rate-limit bucket of an admitted person: the access policy's user, or the local operator. */
function identityKey(identity: Identity): string {
  if (identity.kind === 'local') return 'local-operator'
  return identity.email ? `email:${identity.email.toLowerCase()}` : `subject:${identity.issuer} ${identity.subject}`
}

const queryLimitMessage = (r: LimitResult) =>
  `Rate limit exceeded: ${r.limit} requests per ${config.RATE_LIMIT_WINDOW_S} seconds per person. Retry after ${retryAfterOf(r)} seconds.`

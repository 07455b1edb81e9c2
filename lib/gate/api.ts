import 'server-only'
import { NextResponse, type NextRequest } from 'next/server'
import { config } from '@/lib/config'
import { errorBody } from '@/lib/http/errors'
import { addressBucket, clientIpFrom, connectionIpIsStamped } from '@/lib/http/client-ip'
import { internalKeyProblem } from '@/lib/http/internal-key'
import { INTERNAL_KEY_HEADER, CLIENT_IP_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import { recordAnswer } from '@/lib/http/request-log'
import { parseJsonText, readBody } from '@/lib/http/body'
import { MCP_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { logOnce } from '@/lib/log'
import { authFailureMessage, getLimiter, rateLimitMessage, type LimitPolicy, type LimitResult } from '@/lib/ratelimit/limiter'
import { isInternalOperation, operationsAt } from '@/lib/operations'
import { CRON_PATH_PREFIX } from '@/lib/jobs/names'
import { cronAuthProblem } from '@/lib/jobs/cron-secret'
import { forwardedHeaders } from '@/lib/gate/edges'
import { mcpBodyCost, rateLimitedAnswer } from '@/lib/mcp/cost'
import { requestIdFrom } from '@/lib/http/request-id'
import { countRateLimitDenial } from '@/lib/telemetry/telemetry'

// The request gate for /api/*: request id, client IP, rate limit, internal-key check, CORS and the
// rate-limit headers. Route handlers run only for requests that pass.
//
// What is counted where (lib/ratelimit/limiter.ts): the health probes in their own per-address
// buckets (a client that used up its quota, even from the balancer's own address, must not make
// every instance answer 429 to the balancer); a cron call with the right secret nowhere (the
// scheduler is not a client); a cron call without it like any request, and once more as a failed
// authentication, whose small quota stops secret guessing at a 429.

/** The liveness and readiness probes (`?probe=live`, readiness otherwise). */
const PROBE_PATH = '/api/health'

// ETag and If-None-Match: browser clients revalidate the MCP server card and the AI Catalog.
const EXPOSED = 'RateLimit, RateLimit-Policy, Retry-After, X-Request-Id, ETag'
const MCP_PATH = '/api/mcp'

/** IETF draft-ietf-httpapi-ratelimit-headers fields for one result. */
export function rateLimitHeaders(r: LimitResult, policy: LimitPolicy = 'default'): Record<string, string> {
  const seconds = Math.max(0, Math.ceil((r.reset - Date.now()) / 1000))
  return {
    'RateLimit-Policy': `"${policy}";q=${r.limit};w=${config.RATE_LIMIT_WINDOW_S}`,
    RateLimit: `"${policy}";r=${r.remaining};t=${seconds}`,
  }
}

/** Seconds until the window of `r` ends, at least 1 (the Retry-After of a 429). */
export const retryAfterOf = (r: LimitResult) => String(Math.max(1, Math.ceil((r.reset - Date.now()) / 1000)))

/**
 * A path's own CORS policy: the origin to allow (or null for none) when `path` is its own,
 * undefined otherwise. The proxy registers them (the MCP endpoint allows only the origins its
 * DNS-rebinding protection accepts); every other public operation is open to any origin.
 */
export type CorsPolicy = (path: string, headers: Headers) => string | null | undefined
const corsPolicies: CorsPolicy[] = []

export function addCorsPolicy(policy: CorsPolicy): void {
  corsPolicies.push(policy)
}

function policyOrigin(path: string, headers: Headers): string | null | undefined {
  for (const policy of corsPolicies) {
    const origin = policy(path, headers)
    if (origin !== undefined) return origin
  }
  return undefined
}

function corsHeaders(allowOrigin: string | null): Record<string, string> {
  if (!allowOrigin) return {}
  return {
    'Access-Control-Allow-Origin': allowOrigin,
    ...(allowOrigin === '*' ? {} : { Vary: 'Origin' }),
    'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    'Access-Control-Allow-Headers': 'Content-Type, If-None-Match, X-Request-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name',
    'Access-Control-Expose-Headers': EXPOSED,
    'Access-Control-Max-Age': '86400',
  }
}

/** Identity headers every request carries into the app (request id and the resolved client IP). */
export function forwardIdentity(req: NextRequest, requestId: string, clientIp: string): Headers {
  const headers = forwardedHeaders(req)
  headers.set(REQUEST_ID_HEADER, requestId)
  headers.set(CLIENT_IP_HEADER, clientIp)
  return headers
}

/**
 * The parsed JSON-RPC body of a POST to /api/mcp, read from the proxy's copy of the body (the route
 * reads its own) within the route's byte limit; undefined when it cannot be read, which the route
 * then answers (413, 415, -32700) and which costs one unit.
 */
async function mcpBody(req: NextRequest): Promise<unknown> {
  try {
    return parseJsonText(new TextDecoder().decode(await readBody(req, MCP_BODY_MAX_BYTES)))
  } catch {
    return undefined
  }
}

export async function apiGate(req: NextRequest, requestId = requestIdFrom(req.headers)): Promise<Response> {
  const started = performance.now()
  const clientIp = clientIpFrom(req.headers)
  if (clientIp === 'unknown' && !connectionIpIsStamped())
    logOnce(
      'no-client-ip',
      'warn',
      'client address unavailable: start with `npm start` (server.mjs) or set TRUSTED_IP_HEADER behind a proxy; all clients share one rate-limit bucket',
    )
  const path = req.nextUrl.pathname
  // A preflight is judged by the method it asks for, so internal operations never get CORS headers.
  const method = req.method === 'OPTIONS' ? (req.headers.get('access-control-request-method') ?? 'OPTIONS').toUpperCase() : req.method
  const internal = isInternalOperation(method, path)
  // Public operations are open to any browser origin, internal ones to none, and a path with a
  // registered policy (the MCP endpoint) to the origins it allows.
  // The cron routes (lib/jobs/cron.ts) are for schedulers, never for browsers.
  const registered = policyOrigin(path, req.headers)
  const cors = corsHeaders(registered !== undefined ? registered : internal || path.startsWith(CRON_PATH_PREFIX) ? null : '*')

  if (req.method === 'OPTIONS') return new Response(null, { status: 204, headers: { ...cors, [REQUEST_ID_HEADER]: requestId } })

  const bucket = addressBucket(clientIp)
  const reject = (status: number, body: unknown, extra: Record<string, string> = {}) => {
    recordAnswer(req, { requestId, route: path, status, clientIp, startedAt: started, rateLimited: status === 429 })
    if (status === 429) countRateLimitDenial(deniedBy)
    return NextResponse.json(body, { status, headers: { ...cors, [REQUEST_ID_HEADER]: requestId, ...extra, 'cache-control': 'no-store' } })
  }

  const cron = path.startsWith(CRON_PATH_PREFIX)
  // The policy whose quota a 429 is for (the telemetry's denial counter).
  let deniedBy: LimitPolicy = 'default'
  let policy: LimitPolicy | null = path === PROBE_PATH && (req.method === 'GET' || req.method === 'HEAD') ? 'probe' : 'default'
  if (cron) {
    // An address that guessed too often is refused before its secret is looked at: otherwise the
    // right guess would still stand out from the 429s.
    const failures = getLimiter('auth-failure')
    const blocked = await failures.check(bucket)
    if (!blocked.success) {
      const retryAfter = retryAfterOf(blocked)
      deniedBy = 'auth-failure'
      return reject(429, errorBody('errorString', 'rate_limited', authFailureMessage(blocked.limit, config.RATE_LIMIT_WINDOW_S, retryAfter), requestId), {
        ...rateLimitHeaders(blocked, 'auth-failure'),
        'Retry-After': retryAfter,
      })
    }
    if (cronAuthProblem(req.headers.get('authorization'))) await failures.limit(bucket)
    else policy = null
  }

  // The tool server is charged per JSON-RPC message and per upstream query a tool fans out to
  // (lib/mcp/cost.ts), and answers a limited client in JSON-RPC, one error per request id.
  const mcp = path === MCP_PATH && req.method === 'POST' ? { body: await mcpBody(req) } : null
  const units = mcp ? mcpBodyCost(mcp.body) : 1
  const limit = policy ? await getLimiter(policy).limit(bucket, units) : null
  const headers = { ...(limit && policy ? rateLimitHeaders(limit, policy) : {}), ...cors, [REQUEST_ID_HEADER]: requestId }

  if (limit && !limit.success) {
    const retryAfter = retryAfterOf(limit)
    const message = rateLimitMessage(limit.limit, config.RATE_LIMIT_WINDOW_S, retryAfter)
    if (policy) deniedBy = policy
    if (mcp) {
      const data = { retryAfter: Number(retryAfter), limit: limit.limit, remaining: limit.remaining, windowSeconds: config.RATE_LIMIT_WINDOW_S, cost: units }
      const counted = units > 1 ? ` This request counts as ${units} (each message, and each DNS query of a domain check).` : ''
      return reject(429, rateLimitedAnswer(mcp.body, `${message}${counted}`, data), { ...headers, 'Retry-After': retryAfter })
    }
    return reject(429, errorBody(cron ? 'errorString' : 'envelope', 'rate_limited', message, requestId), { ...headers, 'Retry-After': retryAfter })
  }
  // A path of the API that exists, asked with a method it does not answer: 405 with Allow, in the
  // path's error shape (Next's own 405 has neither). /api/mcp answers its own.
  const atPath = operationsAt(path)
  if (atPath.length > 0 && !atPath.some((op) => op.method === req.method || (req.method === 'HEAD' && op.method === 'GET'))) {
    const methods = [...new Set(atPath.flatMap((op) => (op.method === 'GET' ? ['GET', 'HEAD'] : [op.method]))), 'OPTIONS']
    const message = `Method ${req.method} is not allowed here; this path answers ${methods.join(', ')}.`
    return reject(405, errorBody(atPath[0].errorFormat ?? 'envelope', 'method_not_allowed', message, requestId), { ...headers, Allow: methods.join(', ') })
  }
  // The cron routes answer GET only (Vercel Cron's method); anything else gets the same 405.
  if (path.startsWith(CRON_PATH_PREFIX) && req.method !== 'GET') {
    const message = `Method ${req.method} is not allowed here; cron routes answer GET.`
    return reject(405, errorBody('errorString', 'method_not_allowed', message, requestId), { ...headers, Allow: 'GET' })
  }
  if (internal) {
    const problem = internalKeyProblem(req.headers.get(INTERNAL_KEY_HEADER))
    if (problem) return reject(403, errorBody('errorString', 'forbidden', problem, requestId), headers)
  }

  const res = NextResponse.next({ request: { headers: forwardIdentity(req, requestId, clientIp) } })
  for (const [k, v] of Object.entries(headers)) res.headers.set(k, v)
  return res
}

// What a POST to /api/mcp costs the client's rate limit, and the JSON-RPC answer when it is over.
// The gate (lib/gate/api.ts) reads the body before the route runs and charges every message, not
// every HTTP request: a 2025-03-26 batch of 20 calls is 20 requests. A tool that fans out costs
// what it spends upstream: a domain check sends some 25-36 DNS queries (measured on the zone
// fixtures, tests/unit/mcp-cost.test.ts), so it is charged DOMAIN_CHECK_DNS_QUERIES more, plus one
// per extra DKIM selector it probes. Kept free of the tool registry so the gate stays small.

/** The most messages one batch may carry; a larger batch is refused whole (lib/mcp/framing.ts). */
export const MCP_BATCH_MAX = 20

/** Extra units a check_domain_health call is charged: the DNS queries of a check with the 16 common DKIM selectors, rounded up. */
export const DOMAIN_CHECK_DNS_QUERIES = 40

/**
 * The JSON-RPC error code of a rate-limited message. SEP-3304 proposes -32023 (`RateLimited`), but
 * until a revision defines it that code is reserved (2026-07-28: implementations MUST NOT emit an
 * undefined code from -32020 to -32099, and new codes SHOULD lie outside -32768 to -32000). 429
 * is an application-defined code that mirrors the HTTP status, as several JSON-RPC providers use it.
 */
export const RATE_LIMITED_CODE = 429

type Id = string | number

interface Message {
  id?: unknown
  method?: unknown
  params?: { name?: unknown; arguments?: { selectors?: unknown } }
}

const asMessage = (value: unknown): Message => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Message) : {})

/** Units one message costs: 1, and for a domain check the DNS queries it sends. */
export function messageCost(value: unknown): number {
  const m = asMessage(value)
  if (m.method !== 'tools/call' || m.params?.name !== 'check_domain_health') return 1
  const selectors = m.params.arguments?.selectors
  return 1 + DOMAIN_CHECK_DNS_QUERIES + (Array.isArray(selectors) ? Math.min(selectors.length, 10) : 0)
}

/**
 * The units a parsed body costs. A batch over MCP_BATCH_MAX is refused without running anything,
 * so each of its messages costs 1; a value that is not JSON-RPC at all costs 1.
 */
export function mcpBodyCost(value: unknown): number {
  if (!Array.isArray(value)) return messageCost(value)
  if (value.length > MCP_BATCH_MAX) return value.length
  return Math.max(
    1,
    value.reduce((sum: number, m) => sum + messageCost(m), 0),
  )
}

const requestId = (value: unknown): Id | undefined => {
  const m = asMessage(value)
  return typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : undefined
}

export interface RateLimitedData {
  /** Seconds until the window resets, as in Retry-After. */
  retryAfter: number
  /** Units allowed per window. */
  limit: number
  remaining: number
  windowSeconds: number
  /** Units this HTTP request would have cost (all its messages). */
  cost: number
}

export interface RateLimitedError {
  jsonrpc: '2.0'
  id: Id | null
  error: { code: number; message: string; data: RateLimitedData }
}

/**
 * The 429 body for a parsed request body: one error per request message of a batch (notifications
 * get none), the error with the request's id for a single message, and one error with id null when
 * there is no request id to answer (an unreadable body, notifications only).
 */
export function rateLimitedAnswer(value: unknown, message: string, data: RateLimitedData): RateLimitedError | RateLimitedError[] {
  const error = (id: Id | null): RateLimitedError => ({ jsonrpc: '2.0', id, error: { code: RATE_LIMITED_CODE, message, data } })
  if (!Array.isArray(value)) return error(requestId(value) ?? null)
  const ids = value.map(requestId).filter((id): id is Id => id !== undefined)
  return ids.length > 0 ? ids.map(error) : error(null)
}

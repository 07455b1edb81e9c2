import 'server-only'
import { Ratelimit } from '@upstash/ratelimit'
import { processSlot } from '@/lib/process-slot'
import { config } from '@/lib/config'
import { log, logOnce } from '@/lib/log'
import { getRedis, getRedisBreaker } from '@/lib/redis'
import { withTimeout } from '@/lib/timeout'

/** The sentence a limited client reads (the 429 body, and the OpenAPI example of it). */
export const rateLimitMessage = (max: number, windowS: number, retryAfter: number | string) =>
  `Rate limit exceeded: ${max} requests per ${windowS} seconds per client. Retry after ${retryAfter} seconds.`

/** The sentence an address that sent too many wrong secrets reads. */
export const authFailureMessage = (max: number, windowS: number, retryAfter: number | string) =>
  `Too many failed authentications from this address: ${max} per ${windowS} seconds. Retry after ${retryAfter} seconds.`

/**
 * The counted policies, each with its own buckets:
 * - default: the public API, per client address (RATE_LIMIT_MAX);
 * - probe: /api/health, per address (PROBE_RATE_LIMIT_MAX), so a client that used up its own
 *   quota, even from the balancer's address, never makes an instance look down;
 * - query: the query application, per identity or address (QUERY_RATE_LIMIT_MAX);
 * - auth-failure: wrong or missing secrets on the cron and ingest routes, per address
 *   (AUTH_FAILURE_LIMIT_MAX), so guessing a secret stops at a 429.
 */
export type LimitPolicy = 'default' | 'probe' | 'query' | 'auth-failure'

export function policySettings(policy: LimitPolicy): { max: number; windowS: number; prefix: string } {
  const windowS = config.RATE_LIMIT_WINDOW_S
  switch (policy) {
    case 'default':
      return { max: config.RATE_LIMIT_MAX, windowS, prefix: 'rl:ip' }
    case 'probe':
      return { max: config.PROBE_RATE_LIMIT_MAX, windowS, prefix: 'rl:probe' }
    case 'query':
      return { max: config.QUERY_RATE_LIMIT_MAX, windowS, prefix: 'rl:query' }
    case 'auth-failure':
      return { max: config.AUTH_FAILURE_LIMIT_MAX, windowS, prefix: 'rl:authfail' }
  }
}

export interface LimitResult {
  success: boolean
  limit: number
  remaining: number
  /** Epoch ms at which the current window ends. */
  reset: number
  /** True when the store could not be used and this process's own count decided (lib/circuit-breaker.ts). */
  failedOpen: boolean
}

export interface Limiter {
  kind: 'upstash' | 'redis' | 'memory'
  /** Counts `units` requests (default 1) for `id`: a request that fans out (an MCP batch, a domain check) costs more than one. */
  limit(id: string, units?: number): Promise<LimitResult>
  /** Whether `id` has quota left, without counting anything (success false once the quota is used up). */
  check(id: string): Promise<LimitResult>
}

/** Fixed windows aligned to multiples of the window length, as the reference API counts. */
export function createMemoryLimiter(max: number, windowS: number, now = () => Date.now()): Limiter {
  const windowMs = windowS * 1000
  const counts = new Map<string, { window: number; used: number }>()
  const entryOf = (id: string, window: number) => {
    const entry = counts.get(id)
    return entry && entry.window === window ? entry : undefined
  }
  return {
    kind: 'memory',
    async limit(id, units = 1) {
      const window = Math.floor(now() / windowMs)
      let entry = entryOf(id, window)
      if (!entry) {
        if (counts.size > 100_000) for (const [k, v] of counts) if (v.window !== window) counts.delete(k)
        entry = { window, used: 0 }
        counts.set(id, entry)
      }
      entry.used += units
      const success = entry.used <= max
      return { success, limit: max, remaining: Math.max(0, max - entry.used), reset: (window + 1) * windowMs, failedOpen: false }
    },
    async check(id) {
      const window = Math.floor(now() / windowMs)
      const used = entryOf(id, window)?.used ?? 0
      return { success: used < max, limit: max, remaining: Math.max(0, max - used), reset: (window + 1) * windowMs, failedOpen: false }
    },
  }
}

/**
 * The shared store's limiter, behind the store's circuit breaker. Every request is also counted in
 * memory, so when the store fails or hangs (and while the breaker is open) this process goes on
 * limiting with its own count: a client cannot exceed the policy on one instance, and no request
 * waits for a store known to be down.
 */
function createStoreLimiter(max: number, windowS: number, timeoutMs: number, prefix: string): Limiter | null {
  const redis = getRedis()
  const breaker = getRedisBreaker()
  if (!redis || !breaker) return null
  const ratelimit = new Ratelimit({
    redis: redis.client,
    limiter: Ratelimit.fixedWindow(max, `${windowS} s`),
    prefix,
    timeout: timeoutMs,
    analytics: false,
    ephemeralCache: false,
  })
  const local = createMemoryLimiter(max, windowS)
  const onStore = (work: () => Promise<LimitResult>, own: () => Promise<LimitResult>) =>
    breaker.run<LimitResult>(work, async (reason) => {
      if (!breaker.isOpen()) log.warn('rate-limit store unavailable; this request limited by the in-memory count', { reason: reason.slice(0, 200) })
      return { ...(await own()), failedOpen: true }
    })
  return {
    kind: redis.kind,
    async limit(id, units = 1) {
      const own = local.limit(id, units)
      return onStore(
        async () => {
          const r = await withTimeout(ratelimit.limit(id, { rate: units }), timeoutMs)
          if (r.reason === 'timeout') throw new Error(`timed out after ${timeoutMs} ms`)
          return { success: r.success, limit: r.limit, remaining: r.remaining, reset: r.reset, failedOpen: false }
        },
        () => own,
      )
    },
    async check(id) {
      return onStore(
        async () => {
          const r = await withTimeout(ratelimit.getRemaining(id), timeoutMs)
          return { success: r.remaining > 0, limit: max, remaining: r.remaining, reset: r.reset, failedOpen: false }
        },
        () => local.check(id),
      )
    },
  }
}

function createDisabledLimiter(max: number, windowS: number): Limiter {
  const windowMs = windowS * 1000
  const open = async (): Promise<LimitResult> => ({
    success: true,
    limit: max,
    remaining: max,
    reset: (Math.floor(Date.now() / windowMs) + 1) * windowMs,
    failedOpen: false,
  })
  return { kind: 'memory', limit: open, check: open }
}

const limiterSlot = processSlot<Partial<Record<LimitPolicy, Limiter>>>('limiters')

export function getLimiter(policy: LimitPolicy = 'default'): Limiter {
  const limiters = limiterSlot.getOrCreate(() => ({}))
  return (limiters[policy] ??= createLimiter(policy))
}

function createLimiter(policy: LimitPolicy): Limiter {
  const { max, windowS, prefix } = policySettings(policy)
  // Failed authentications stay counted even then: RATE_LIMIT_DISABLED is about throughput, and
  // counting wrong secrets costs a legitimate caller nothing.
  if (config.RATE_LIMIT_DISABLED && policy !== 'auth-failure') {
    logOnce('limiter', 'warn', 'rate limiting is DISABLED (RATE_LIMIT_DISABLED=true)')
    return createDisabledLimiter(max, windowS)
  }
  const limiter = createStoreLimiter(max, windowS, config.RATE_LIMIT_TIMEOUT_MS, prefix) ?? createMemoryLimiter(max, windowS)
  if (limiter.kind === 'memory')
    logOnce('limiter', 'warn', 'rate limiter: in-memory store (single process only; set REDIS_URL or KV_REST_API_URL to share limits)')
  else logOnce('limiter', 'info', `rate limiter: ${limiter.kind} store`, { max, windowS })
  return limiter
}

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
}

/** Fixed windows aligned to multiples of the window length, as the reference API counts. */
export function createMemoryLimiter(max: number, windowS: number, now = () => Date.now()): Limiter {
  const windowMs = windowS * 1000
  const counts = new Map<string, { window: number; used: number }>()
  return {
    kind: 'memory',
    async limit(id, units = 1) {
      const t = now()
      const window = Math.floor(t / windowMs)
      let entry = counts.get(id)
      if (!entry || entry.window !== window) {
        if (counts.size > 100_000) for (const [k, v] of counts) if (v.window !== window) counts.delete(k)
        entry = { window, used: 0 }
        counts.set(id, entry)
      }
      entry.used += units
      const success = entry.used <= max
      return { success, limit: max, remaining: Math.max(0, max - entry.used), reset: (window + 1) * windowMs, failedOpen: false }
    },
  }
}

/**
 * The shared store's limiter, behind the store's circuit breaker. Every request is also counted in
 * memory, so when the store fails or hangs (and while the breaker is open) this process goes on
 * limiting with its own count: a client cannot exceed the policy on one instance, and no request
 * waits for a store known to be down.
 */
function createStoreLimiter(max: number, windowS: number, timeoutMs: number): Limiter | null {
  const redis = getRedis()
  const breaker = getRedisBreaker()
  if (!redis || !breaker) return null
  const ratelimit = new Ratelimit({
    redis: redis.client,
    limiter: Ratelimit.fixedWindow(max, `${windowS} s`),
    prefix: 'rl:ip',
    timeout: timeoutMs,
    analytics: false,
    ephemeralCache: false,
  })
  const local = createMemoryLimiter(max, windowS)
  return {
    kind: redis.kind,
    async limit(id, units = 1) {
      const own = local.limit(id, units)
      return breaker.run<LimitResult>(
        async () => {
          const r = await withTimeout(ratelimit.limit(id, { rate: units }), timeoutMs)
          if (r.reason === 'timeout') throw new Error(`timed out after ${timeoutMs} ms`)
          return { success: r.success, limit: r.limit, remaining: r.remaining, reset: r.reset, failedOpen: false }
        },
        async (reason) => {
          if (!breaker.isOpen()) log.warn('rate-limit store unavailable; this request limited by the in-memory count', { reason: reason.slice(0, 200) })
          return { ...(await own), failedOpen: true }
        },
      )
    },
  }
}

function createDisabledLimiter(max: number, windowS: number): Limiter {
  const windowMs = windowS * 1000
  return {
    kind: 'memory',
    async limit() {
      return { success: true, limit: max, remaining: max, reset: (Math.floor(Date.now() / windowMs) + 1) * windowMs, failedOpen: false }
    },
  }
}

const limiterSlot = processSlot<Limiter>('limiter')

export function getLimiter(): Limiter {
  return limiterSlot.getOrCreate(() => {
    const { RATE_LIMIT_MAX: max, RATE_LIMIT_WINDOW_S: windowS, RATE_LIMIT_TIMEOUT_MS: timeoutMs } = config
    if (config.RATE_LIMIT_DISABLED) {
      logOnce('limiter', 'warn', 'rate limiting is DISABLED (RATE_LIMIT_DISABLED=true)')
      return createDisabledLimiter(max, windowS)
    }
    const limiter = createStoreLimiter(max, windowS, timeoutMs) ?? createMemoryLimiter(max, windowS)
    if (limiter.kind === 'memory')
      logOnce('limiter', 'warn', 'rate limiter: in-memory store (single process only; set REDIS_URL or KV_REST_API_URL to share limits)')
    else logOnce('limiter', 'info', `rate limiter: ${limiter.kind} store`, { max, windowS })
    return limiter
  })
}

import 'server-only'
import { Ratelimit } from '@upstash/ratelimit'
import { config } from '@/lib/config'
import { log, logOnce } from '@/lib/log'
import { getRedis, withTimeout } from '@/lib/redis'

export interface LimitResult {
  success: boolean
  limit: number
  remaining: number
  /** Epoch ms at which the current window ends. */
  reset: number
  /** True when the store could not be reached and the request was let through. */
  failedOpen: boolean
}

export interface Limiter {
  kind: 'upstash' | 'redis' | 'memory'
  limit(id: string): Promise<LimitResult>
}

/** Fixed windows aligned to multiples of the window length, as the reference API counts. */
export function createMemoryLimiter(max: number, windowS: number, now = () => Date.now()): Limiter {
  const windowMs = windowS * 1000
  const counts = new Map<string, { window: number; used: number }>()
  return {
    kind: 'memory',
    async limit(id) {
      const t = now()
      const window = Math.floor(t / windowMs)
      let entry = counts.get(id)
      if (!entry || entry.window !== window) {
        if (counts.size > 100_000) for (const [k, v] of counts) if (v.window !== window) counts.delete(k)
        entry = { window, used: 0 }
        counts.set(id, entry)
      }
      entry.used += 1
      const success = entry.used <= max
      return { success, limit: max, remaining: Math.max(0, max - entry.used), reset: (window + 1) * windowMs, failedOpen: false }
    },
  }
}

function createStoreLimiter(max: number, windowS: number, timeoutMs: number): Limiter | null {
  const redis = getRedis()
  if (!redis) return null
  const ratelimit = new Ratelimit({
    redis: redis.client,
    limiter: Ratelimit.fixedWindow(max, `${windowS} s`),
    prefix: 'rl:ip',
    timeout: timeoutMs,
    analytics: false,
    ephemeralCache: false,
  })
  const failOpen = (reason: string): LimitResult => {
    log.warn('rate-limit store unavailable; request served without limiting', { reason })
    const windowMs = windowS * 1000
    return { success: true, limit: max, remaining: max, reset: (Math.floor(Date.now() / windowMs) + 1) * windowMs, failedOpen: true }
  }
  return {
    kind: redis.kind,
    async limit(id) {
      try {
        const r = await withTimeout(ratelimit.limit(id), timeoutMs)
        if (r.reason === 'timeout') return failOpen('timeout')
        return { success: r.success, limit: r.limit, remaining: r.remaining, reset: r.reset, failedOpen: false }
      } catch (error) {
        return failOpen(error instanceof Error ? error.message : String(error))
      }
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

export function getLimiter(): Limiter {
  const slot = globalThis as unknown as Record<symbol, Limiter | undefined>
  const key = Symbol.for('utility-api.limiter')
  if (!slot[key]) {
    const { RATE_LIMIT_MAX: max, RATE_LIMIT_WINDOW_S: windowS, RATE_LIMIT_TIMEOUT_MS: timeoutMs } = config
    if (config.RATE_LIMIT_DISABLED) {
      logOnce('limiter', 'warn', 'rate limiting is DISABLED (RATE_LIMIT_DISABLED=true)')
      return (slot[key] = createDisabledLimiter(max, windowS))
    }
    slot[key] = createStoreLimiter(max, windowS, timeoutMs) ?? createMemoryLimiter(max, windowS)
    const kind = slot[key]!.kind
    if (kind === 'memory')
      logOnce('limiter', 'warn', 'rate limiter: in-memory store (single process only; set REDIS_URL or KV_REST_API_URL to share limits)')
    else logOnce('limiter', 'info', `rate limiter: ${kind} store`, { max, windowS })
  }
  return slot[key]!
}

import 'server-only'
import { AppError } from '@/lib/errors'

// A client-side request budget for an upstream that publishes a per-window limit (ip-api: 45 a
// minute, reported back in X-Rl / X-Ttl). Calls stop before the limit is reached instead of
// earning 429s and, eventually, a ban. Each call is counted when it is sent, so concurrent calls
// cannot overshoot; answers only ever lower the count within a window. Per process: with several
// instances behind one address the upstream's own figures correct each instance on its next call.

export interface RateBudgetOptions {
  /** Requests allowed per window, assumed until the upstream reports its own figure. */
  limit: number
  windowS: number
}

export class UpstreamRateLimited extends AppError {
  constructor(
    readonly upstream: string,
    retryAfterSeconds: number,
  ) {
    super('upstream_failed', `${upstream} request limit reached; answers resume in ${retryAfterSeconds} s (cached results are still served).`, {
      upstream,
      retryAfterSeconds,
    })
  }
}

export interface RateBudget {
  /** Counts one call, or throws UpstreamRateLimited when none is left in this window. */
  take(): void
  /** Records what the upstream reported: calls left in its window and seconds until it resets. */
  observe(remaining: number, resetInS: number): void
  /** Marks the window exhausted (the upstream answered 429) for `resetInS` seconds. */
  exhaust(resetInS: number): void
  /** Calls left and ms until the window resets, for logs and tests. */
  state(): { remaining: number; resetInMs: number }
}

export function createRateBudget(upstream: string, options: RateBudgetOptions, now: () => number = Date.now): RateBudget {
  let remaining = options.limit
  let resetAt = 0

  const roll = () => {
    if (now() >= resetAt) {
      remaining = options.limit
      resetAt = now() + options.windowS * 1000
    }
  }

  return {
    take() {
      roll()
      if (remaining <= 0) throw new UpstreamRateLimited(upstream, Math.max(1, Math.ceil((resetAt - now()) / 1000)))
      remaining--
    },
    observe(reportedRemaining, resetInS) {
      if (!Number.isFinite(reportedRemaining) || !Number.isFinite(resetInS) || reportedRemaining < 0 || resetInS < 0) return
      const reportedReset = now() + resetInS * 1000
      if (now() >= resetAt) {
        remaining = reportedRemaining
      } else {
        // Calls still in flight are already counted locally, so keep the lower figure.
        remaining = Math.min(remaining, reportedRemaining)
      }
      resetAt = reportedReset
    },
    exhaust(resetInS) {
      remaining = 0
      resetAt = now() + Math.max(1, resetInS) * 1000
    },
    state: () => ({ remaining, resetInMs: Math.max(0, resetAt - now()) }),
  }
}

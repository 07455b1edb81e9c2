import { log } from '@/lib/log'

// A circuit breaker for an optional dependency (the Redis store). After `threshold` consecutive
// failures (errors or timeouts) it opens: callers get their fallback at once, without touching the
// dependency, and a background probe checks it after a short interval that doubles on each failed
// probe up to `maxOpenMs`. The first successful probe closes it.

export type BreakerState = 'closed' | 'open'

export interface BreakerSnapshot {
  state: BreakerState
  /** Consecutive failures while closed. */
  failures: number
  /** Times it opened since start. */
  opened: number
  /** Ms until the next probe while open, else null. */
  nextProbeInMs: number | null
}

export interface Breaker {
  /** `task` while closed; `fallback` while open, or when `task` fails. */
  run<T>(task: () => Promise<T>, fallback: (reason: string) => T | Promise<T>): Promise<T>
  snapshot(): BreakerSnapshot
  isOpen(): boolean
  stop(): void
}

export interface BreakerOptions {
  name: string
  /** Round trip to the dependency; resolves when it answers. */
  probe: () => Promise<void>
  threshold?: number
  minOpenMs?: number
  maxOpenMs?: number
}

export function createBreaker({ name, probe, threshold = 3, minOpenMs = 500, maxOpenMs = 5000 }: BreakerOptions): Breaker {
  let state: BreakerState = 'closed'
  let failures = 0
  let opened = 0
  let openMs = minOpenMs
  let probeAt = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastReason = ''

  function scheduleProbe() {
    probeAt = Date.now() + openMs
    timer = setTimeout(async () => {
      try {
        await probe()
        state = 'closed'
        failures = 0
        openMs = minOpenMs
        log.info(`${name}: answering again; circuit closed`)
      } catch (error) {
        openMs = Math.min(maxOpenMs, openMs * 2)
        lastReason = error instanceof Error ? error.message : String(error)
        scheduleProbe()
      }
    }, openMs)
    timer.unref?.()
  }

  function fail(reason: string) {
    lastReason = reason
    if (state === 'open') return
    failures++
    if (failures >= threshold) {
      state = 'open'
      opened++
      openMs = minOpenMs
      log.warn(`${name} unavailable; circuit open, using the fallback until a probe succeeds`, { reason: lastReason.slice(0, 200), failures })
      scheduleProbe()
    }
  }

  return {
    async run(task, fallback) {
      if (state === 'open') return fallback(lastReason)
      try {
        const result = await task()
        failures = 0
        return result
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        fail(reason)
        return fallback(reason)
      }
    },
    snapshot: () => ({ state, failures, opened, nextProbeInMs: state === 'open' ? Math.max(0, probeAt - Date.now()) : null }),
    isOpen: () => state === 'open',
    stop: () => clearTimeout(timer),
  }
}

/** `promise`, or a rejection after `ms` (the promise itself keeps running). */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Retry pacing after consecutive failures: the wait doubles from `minMs` up to `maxMs`, with ±20 %
 * jitter so processes that failed together do not retry together.
 */
export class Backoff {
  private count = 0
  /** Epoch ms of the first of the current failures. */
  private failingSince = 0
  /** Epoch ms before which no attempt is made (0: at once). */
  private retryAt = 0

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** Consecutive failures; 0 after a success. */
  get failures(): number {
    return this.count
  }

  /** Counts a failure; returns the wait (ms) before the next attempt. */
  failed(): number {
    if (this.count === 0) this.failingSince = Date.now()
    this.count++
    const wait = Math.min(this.maxMs, this.minMs * 2 ** (this.count - 1)) * (0.8 + Math.random() * 0.4)
    this.retryAt = Date.now() + wait
    return wait
  }

  /** Counts a success; returns the failures it ended and how long they lasted, or null when there were none. */
  succeeded(): { failures: number; outageMs: number } | null {
    const ended = this.count > 0 ? { failures: this.count, outageMs: Date.now() - this.failingSince } : null
    this.count = 0
    this.retryAt = 0
    return ended
  }

  /** True unless waiting after a failure. */
  ready(): boolean {
    return Date.now() >= this.retryAt
  }

  /** The next attempt may start at once (a flush, a shutdown); the failure count stays. */
  retryNow(): void {
    this.retryAt = 0
  }

  /** Epoch ms of the next attempt while waiting, else null. */
  nextAttemptAt(): number | null {
    return this.retryAt > Date.now() ? this.retryAt : null
  }
}

import { describe, expect, it } from 'vitest'
import { createRateBudget, UpstreamRateLimited } from '@/lib/upstream/rate-budget'

function clock(start = 1_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('rate budget', () => {
  it('allows the documented limit per window, then refuses with the time to reset', () => {
    const c = clock()
    const budget = createRateBudget('up', { limit: 3, windowS: 60 }, c.now)
    budget.take()
    budget.take()
    budget.take()
    c.advance(20_000)
    let error: unknown
    try {
      budget.take()
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(UpstreamRateLimited)
    expect((error as UpstreamRateLimited).status).toBe(502)
    expect((error as UpstreamRateLimited).details?.retryAfterSeconds).toBe(40)
    c.advance(40_000)
    expect(() => budget.take()).not.toThrow()
  })

  it('lowers the count to what the upstream reports (X-Rl) and adopts its reset time (X-Ttl)', () => {
    const c = clock()
    const budget = createRateBudget('up', { limit: 45, windowS: 60 }, c.now)
    budget.take()
    budget.observe(1, 12)
    budget.take()
    expect(() => budget.take()).toThrow(UpstreamRateLimited)
    expect(budget.state().resetInMs).toBe(12_000)
  })

  it('never raises the count within a window: calls in flight are already counted', () => {
    const c = clock()
    const budget = createRateBudget('up', { limit: 45, windowS: 60 }, c.now)
    for (let i = 0; i < 10; i++) budget.take()
    budget.observe(44, 55) // the answer to the first call arrives late
    expect(budget.state().remaining).toBe(35)
  })

  it('stops entirely after a 429 until the window the upstream gave runs out', () => {
    const c = clock()
    const budget = createRateBudget('up', { limit: 45, windowS: 60 }, c.now)
    budget.take()
    budget.exhaust(30)
    expect(() => budget.take()).toThrow(UpstreamRateLimited)
    c.advance(30_000)
    expect(() => budget.take()).not.toThrow()
  })

  it('ignores missing or garbled headers', () => {
    const c = clock()
    const budget = createRateBudget('up', { limit: 2, windowS: 60 }, c.now)
    budget.take()
    budget.observe(NaN, NaN)
    budget.observe(-1, 5)
    expect(budget.state().remaining).toBe(1)
  })
})

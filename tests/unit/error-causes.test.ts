import { afterEach, describe, expect, it, vi } from 'vitest'
import { causeChain, causeMessage, codedCause } from '@/lib/errors'
import { Backoff } from '@/lib/timeout'

// The cause-chain helpers every unwrapper of a driver's or fetch's error uses, and the backoff the
// request log's writer and shipper share.

const pg = Object.assign(new Error('deadlock detected'), { code: '40P01' })
const wrapped = new Error('Failed query: select 1', { cause: pg })

describe('cause chain', () => {
  it('walks from the error through what it wraps, bounded even for a cycle', () => {
    expect(causeChain(wrapped)).toEqual([wrapped, pg])
    expect(causeChain('text')).toEqual([])
    const a = new Error('a') as Error & { cause?: unknown }
    a.cause = a
    expect(causeChain(a)).toHaveLength(5)
  })

  it('finds the first error with a code, and the wrapped error’s own words', () => {
    expect(codedCause(wrapped)).toBe(pg)
    expect(codedCause(new Error('plain'))).toBeUndefined()
    expect(causeMessage(wrapped)).toBe('deadlock detected')
    expect(causeMessage(new Error('fetch failed', { cause: 'not an error' }))).toBe('fetch failed')
    expect(causeMessage('text')).toBe('text')
  })
})

describe('Backoff', () => {
  afterEach(() => vi.restoreAllMocks())

  it('doubles the wait from the minimum up to the maximum, jittered ±20 %, and a success ends the outage', () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5) // no jitter
    const b = new Backoff(100, 350)
    expect(b.ready()).toBe(true)
    expect(b.succeeded()).toBeNull()
    expect([b.failed(), b.failed(), b.failed()]).toEqual([100, 200, 350])
    expect(b.failures).toBe(3)
    expect(b.ready()).toBe(false)
    expect(b.nextAttemptAt()).toBeGreaterThan(Date.now() - 1)
    b.retryNow()
    expect(b.ready()).toBe(true)
    expect(b.failures).toBe(3)
    expect(b.succeeded()).toMatchObject({ failures: 3 })
    expect([b.failures, b.nextAttemptAt()]).toEqual([0, null])
    vi.spyOn(Math, 'random').mockReturnValue(0)
    expect(b.failed()).toBe(80)
  })
})

import { afterEach, describe, expect, it } from 'vitest'
import { clientIpFrom } from '@/lib/http/client-ip'
import { isValidInternalKey } from '@/lib/http/internal-key'
import { createMemoryLimiter } from '@/lib/ratelimit/limiter'
import { redactQuery } from '@/lib/http/request-log'

const STAMPED = Symbol.for('utility-api.connection-ip-stamped')
const headers = (h: Record<string, string>) => new Headers(h)

describe('client IP', () => {
  afterEach(() => delete (globalThis as Record<symbol, unknown>)[STAMPED])

  it('ignores forwarding headers nobody configured', () => {
    ;(globalThis as Record<symbol, unknown>)[STAMPED] = true
    const h = headers({ 'x-forwarded-for': '9.9.9.9', 'x-real-ip': '8.8.8.8', 'x-tc-connection-ip': '::ffff:127.0.0.1' })
    expect(clientIpFrom(h, undefined)).toBe('127.0.0.1')
  })

  it('uses the left-most x-forwarded-for entry when that header is trusted', () => {
    const h = headers({ 'x-forwarded-for': '203.0.113.7, 10.0.0.1', 'x-tc-connection-ip': '10.0.0.1' })
    expect(clientIpFrom(h, 'x-forwarded-for')).toBe('203.0.113.7')
  })

  it('falls back to the connection when the trusted header is missing or not an address', () => {
    ;(globalThis as Record<symbol, unknown>)[STAMPED] = true
    expect(clientIpFrom(headers({ 'cf-connecting-ip': 'garbage', 'x-tc-connection-ip': '2001:DB8::1' }), 'cf-connecting-ip')).toBe('2001:db8::1')
  })

  it('does not believe the connection header unless server.mjs stamped it', () => {
    expect(clientIpFrom(headers({ 'x-tc-connection-ip': '1.2.3.4' }), undefined)).toBe('unknown')
  })
})

describe('internal key', () => {
  it('accepts any configured key (rotation) and nothing else', () => {
    const keys = ['old-key', 'new-key']
    expect(isValidInternalKey('old-key', keys)).toBe(true)
    expect(isValidInternalKey('new-key', keys)).toBe(true)
    expect(isValidInternalKey('new-key ', keys)).toBe(false)
    expect(isValidInternalKey('', keys)).toBe(false)
    expect(isValidInternalKey(null, keys)).toBe(false)
  })

  it('refuses everything when no key is configured', () => {
    expect(isValidInternalKey('anything', [])).toBe(false)
  })
})

describe('in-memory fixed-window limiter', () => {
  it('allows exactly the quota per window and resets at the window boundary', async () => {
    let now = 60_000
    const limiter = createMemoryLimiter(3, 30, () => now)
    const results = [] as boolean[]
    for (let i = 0; i < 4; i++) results.push((await limiter.limit('a')).success)
    expect(results).toEqual([true, true, true, false])
    expect((await limiter.limit('b')).success).toBe(true)
    const blocked = await limiter.limit('a')
    expect(blocked).toMatchObject({ success: false, remaining: 0, reset: 90_000 })
    now = 90_000
    expect((await limiter.limit('a')).success).toBe(true)
  })
})

describe('request log redaction', () => {
  it('keeps parameter names and drops values', () => {
    expect(redactQuery('?ip=1.2.3.4&ref=newsletter&ip=5.6.7.8')).toBe('ip=***&ref=***')
    expect(redactQuery('')).toBe('')
  })
})

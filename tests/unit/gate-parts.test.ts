import { afterEach, describe, expect, it } from 'vitest'
import { addressBucket, clientIpFrom } from '@/lib/http/client-ip'
import { isValidInternalKey } from '@/lib/http/internal-key'
import { createMemoryLimiter } from '@/lib/ratelimit/limiter'
import { redactQuery } from '@/lib/http/request-log'

const STAMPED = Symbol.for('utility-api.connection-ip-stamped')
const headers = (h: Record<string, string>) => new Headers(h)

describe('client IP', () => {
  afterEach(() => delete (globalThis as Record<symbol, unknown>)[STAMPED])
  const stamp = () => ((globalThis as Record<symbol, unknown>)[STAMPED] = true)
  const xff = (value: string, peer = '10.0.0.2') => headers({ 'x-forwarded-for': value, 'x-tc-connection-ip': peer })
  const one = { header: 'x-forwarded-for', proxies: [] } as const
  const behind = (...proxies: string[]) => ({ header: 'x-forwarded-for', proxies }) as const

  it('ignores forwarding headers nobody configured', () => {
    stamp()
    const h = headers({ 'x-forwarded-for': '9.9.9.9', 'x-real-ip': '8.8.8.8', 'x-tc-connection-ip': '::ffff:127.0.0.1' })
    expect(clientIpFrom(h, { header: undefined, proxies: [] })).toBe('127.0.0.1')
  })

  it('takes the right-most X-Forwarded-For entry (the one the proxy wrote), never the left-most the client wrote', () => {
    stamp()
    expect(clientIpFrom(xff('203.0.113.7'), one)).toBe('203.0.113.7')
    expect(clientIpFrom(xff('1.1.1.1, 203.0.113.7'), one)).toBe('203.0.113.7')
    // Rotating the left-most entry does not move the client to another bucket.
    const rotated = ['1.1.1.1', '2.2.2.2', '127.0.0.1'].map((forged) => clientIpFrom(xff(`${forged}, 203.0.113.7`), one))
    expect(new Set(rotated)).toEqual(new Set(['203.0.113.7']))
    // Two header lines are one list, in order.
    const twoLines = new Headers([
      ['x-forwarded-for', '1.1.1.1'],
      ['x-forwarded-for', '203.0.113.9'],
    ])
    expect(clientIpFrom(twoLines, one)).toBe('203.0.113.9')
  })

  it('skips trusted proxies (addresses and CIDRs, IPv4 and IPv6) from the right', () => {
    stamp()
    const settings = behind('10.0.0.0/8', '2001:db8:ffff::/48', '192.0.2.1')
    expect(clientIpFrom(xff('6.6.6.6, 198.51.100.4, 192.0.2.1, 10.1.2.3'), settings)).toBe('198.51.100.4')
    expect(clientIpFrom(xff('2001:db8:1::5, 2001:db8:ffff::1', '2001:db8:ffff::2'), settings)).toBe('2001:db8:1::5')
    // Every hop trusted: the request began inside the trusted network, at the first hop.
    expect(clientIpFrom(xff('10.9.9.9, 10.1.1.1'), settings)).toBe('10.9.9.9')
  })

  it('ignores the header of a peer that is not a trusted proxy: the peer is the client', () => {
    stamp()
    expect(clientIpFrom(xff('203.0.113.7', '198.51.100.66'), behind('10.0.0.0/8'))).toBe('198.51.100.66')
    expect(
      clientIpFrom(headers({ 'cf-connecting-ip': '203.0.113.7', 'x-tc-connection-ip': '198.51.100.66' }), {
        header: 'cf-connecting-ip',
        proxies: ['10.0.0.0/8'],
      }),
    ).toBe('198.51.100.66')
    // From a trusted peer the header counts.
    expect(clientIpFrom(xff('203.0.113.7', '10.0.0.9'), behind('10.0.0.0/8'))).toBe('203.0.113.7')
  })

  it('reads RFC 7239 Forwarded: quoted values, bracketed IPv6, ports, other parameters', () => {
    stamp()
    const fwd = (value: string, proxies: string[] = []) =>
      clientIpFrom(headers({ forwarded: value, 'x-tc-connection-ip': '10.0.0.2' }), { header: 'forwarded', proxies })
    expect(fwd('for=192.0.2.60;proto=http;by=203.0.113.43')).toBe('192.0.2.60')
    expect(fwd('for=6.6.6.6, for="[2001:DB8:cafe::17]:4711"')).toBe('2001:db8:cafe::17')
    expect(fwd('for="192.0.2.43:8080";proto=https')).toBe('192.0.2.43')
    expect(fwd('For="[2001:db8::1]", for=10.0.0.7', ['10.0.0.0/8'])).toBe('2001:db8::1')
    // A quoted value may hold a comma; it does not split the element.
    expect(fwd('for=1.1.1.1;by="a,b", for=198.51.100.2')).toBe('198.51.100.2')
  })

  it('falls back to the nearest good address on a malformed or unknown hop, never the left-most, never throwing', () => {
    stamp()
    expect(clientIpFrom(xff('203.0.113.7, garbage'), one)).toBe('10.0.0.2')
    expect(clientIpFrom(xff('203.0.113.7, garbage, 10.0.0.3'), behind('10.0.0.0/8'))).toBe('10.0.0.3')
    expect(clientIpFrom(xff('203.0.113.7, 1'), one)).toBe('10.0.0.2') // shorthand IPv4 a proxy never writes
    expect(clientIpFrom(xff(' , '), one)).toBe('10.0.0.2')
    expect(clientIpFrom(xff('[2001:db8::1'), one)).toBe('10.0.0.2')
    const fwd = (value: string) => clientIpFrom(headers({ forwarded: value, 'x-tc-connection-ip': '10.0.0.2' }), { header: 'forwarded', proxies: [] })
    expect(fwd('for=203.0.113.7, for=unknown')).toBe('10.0.0.2')
    expect(fwd('for=203.0.113.7, for=_hidden')).toBe('10.0.0.2')
    expect(fwd('for=203.0.113.7, proto=https')).toBe('10.0.0.2')
    expect(fwd('for="unterminated')).toBe('10.0.0.2')
    // Without the peer (next start, serverless): one shared bucket rather than a forged one.
    expect(clientIpFrom(headers({ 'x-forwarded-for': '203.0.113.7, nonsense' }), one)).toBe('unknown')
  })

  it('falls back to the connection when a single-address header is missing or not an address', () => {
    stamp()
    expect(clientIpFrom(headers({ 'cf-connecting-ip': 'garbage', 'x-tc-connection-ip': '2001:DB8::1' }), { header: 'cf-connecting-ip', proxies: [] })).toBe(
      '2001:db8::1',
    )
    expect(clientIpFrom(headers({ 'x-tc-connection-ip': '192.0.2.8' }), one)).toBe('192.0.2.8')
  })

  it('does not believe the connection header unless server.mjs stamped it', () => {
    expect(clientIpFrom(headers({ 'x-tc-connection-ip': '1.2.3.4' }), { header: undefined, proxies: [] })).toBe('unknown')
  })

  it('puts an IPv6 client in one bucket per /64, an IPv4 client in its own', () => {
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(addressBucket('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64')
    expect(addressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7')
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(addressBucket('unknown')).toBe('unknown')
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

  it('check() tells whether quota is left without using any', async () => {
    let now = 60_000
    const limiter = createMemoryLimiter(2, 30, () => now)
    expect(await limiter.check('a')).toMatchObject({ success: true, remaining: 2 })
    expect(await limiter.check('a')).toMatchObject({ success: true, remaining: 2 })
    await limiter.limit('a')
    await limiter.limit('a')
    expect(await limiter.check('a')).toMatchObject({ success: false, remaining: 0, reset: 90_000 })
    now = 90_000
    expect(await limiter.check('a')).toMatchObject({ success: true, remaining: 2 })
  })
})

describe('request log redaction', () => {
  it('keeps parameter names and drops values', () => {
    expect(redactQuery('?ip=1.2.3.4&ref=newsletter&ip=5.6.7.8')).toBe('ip=***&ref=***')
    expect(redactQuery('')).toBe('')
  })
})

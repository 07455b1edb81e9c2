import { afterAll, describe, expect, it } from 'vitest'
import { loadZones } from '../../test-support/dns-zones'
import { startFakeDoh } from '../../test-support/fake-doh'
import { DOMAIN_CHECK_DNS_QUERIES, MCP_BATCH_MAX, mcpBodyCost, messageCost, RATE_LIMITED_CODE, rateLimitedAnswer } from '@/lib/mcp/cost'
import { frame } from '@/lib/mcp/framing'

// What a POST to /api/mcp costs the rate limit, and how a limited client is answered. The domain
// check's charge is measured against the DNS queries it really sends (the real resolver, over a
// loopback DoH server answering from the zone fixtures).
const doh = await startFakeDoh(loadZones('well-configured', 'providers', 'weak', 'platform', 'spf-trees', 'dkim', 'mx'))
process.env.DOH_URL = doh.url
const { resolve } = await import('@/lib/dns/resolver')
const { checkDomainHealth } = await import('@/lib/domains/service')
const { createMemoryLimiter } = await import('@/lib/ratelimit/limiter')
afterAll(() => doh.close())

const call = (id: number | string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})
const notification = { jsonrpc: '2.0', method: 'notifications/initialized' }

describe('cost', () => {
  it('one unit per message; a domain check adds its DNS queries and one per extra selector', () => {
    expect(messageCost(call(1, 'list_policies'))).toBe(1)
    expect(messageCost(notification)).toBe(1)
    expect(messageCost(call(1, 'check_domain_health', { domain: 'example.com' }))).toBe(1 + DOMAIN_CHECK_DNS_QUERIES)
    expect(messageCost(call(1, 'check_domain_health', { domain: 'example.com', selectors: ['a', 'b'] }))).toBe(3 + DOMAIN_CHECK_DNS_QUERIES)
  })

  it('a batch costs the sum of its messages; one over the cap costs one per message (none of them runs); anything unreadable costs one', () => {
    const batch = [call(1, 'list_policies'), call(2, 'check_domain_health', { domain: 'example.com' }), notification]
    expect(mcpBodyCost(batch)).toBe(3 + DOMAIN_CHECK_DNS_QUERIES)
    const big = Array.from({ length: MCP_BATCH_MAX + 1 }, (_, i) => call(i, 'check_domain_health', { domain: 'example.com' }))
    expect(mcpBodyCost(big)).toBe(MCP_BATCH_MAX + 1)
    expect(mcpBodyCost(Array.from({ length: 100 }, (_, i) => call(i, 'list_policies')))).toBe(100)
    expect(mcpBodyCost(undefined)).toBe(1)
    expect(mcpBodyCost([])).toBe(1)
  })

  it.each([
    ['febit.eu', []],
    ['weak.example', []],
    ['platform.example', []],
    ['nested.example', ['s1', 's2', 's3']],
  ])('a domain check of %s %j sends no more DNS queries than it is charged', async (domain, selectors) => {
    let queries = 0
    const dns = { resolve: (name: string, type: Parameters<typeof resolve>[1]) => (queries++, resolve(name, type)) }
    await checkDomainHealth({ domain, selectors }, { dns, fetchPolicy: async () => ({ ok: false, reason: 'not fetched here' }) as never, budgetMs: 5000 })
    expect(queries).toBeGreaterThan(10)
    expect(queries).toBeLessThanOrEqual(messageCost(call(1, 'check_domain_health', { domain, selectors })) - 1)
  })

  it('the limiter consumes several units at once', async () => {
    const limiter = createMemoryLimiter(100, 30, () => 0)
    expect(await limiter.limit('a', 60)).toMatchObject({ success: true, remaining: 40 })
    expect(await limiter.limit('a', 41)).toMatchObject({ success: false, remaining: 0 })
    expect((await limiter.limit('b', 100)).success).toBe(true)
  })
})

describe('batch cap', () => {
  it(`a batch of more than ${MCP_BATCH_MAX} messages is refused, one -32600 error per message with its id`, () => {
    const big = Array.from({ length: MCP_BATCH_MAX + 1 }, (_, i) => call(i, 'list_policies'))
    const framing = frame(big, '2025-03-26')
    expect(framing.kind).toBe('answer')
    if (framing.kind !== 'answer') return
    expect(framing.status).toBe(400)
    expect(framing.body).toHaveLength(MCP_BATCH_MAX + 1)
    expect((framing.body as { id: unknown; error: { code: number; message: string } }[]).map((e) => [e.id, e.error.code])).toEqual(
      big.map((m) => [m.id, -32600]),
    )
    expect(frame(big.slice(0, MCP_BATCH_MAX), '2025-03-26').kind).toBe('deliver')
  })
})

describe('the rate-limited answer', () => {
  const data = { retryAfter: 7, limit: 500, remaining: 0, windowSeconds: 30, cost: 2 }
  const error = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: RATE_LIMITED_CODE, message: 'over', data } })

  it('answers a request with its id, a batch with one error per request id (notifications get none), and anything else with id null', () => {
    expect(rateLimitedAnswer(call(5, 'list_policies'), 'over', data)).toEqual(error(5))
    expect(rateLimitedAnswer([call('a', 'x'), notification, call(2, 'y')], 'over', data)).toEqual([error('a'), error(2)])
    expect(rateLimitedAnswer([notification], 'over', data)).toEqual(error(null))
    expect(rateLimitedAnswer(undefined, 'over', data)).toEqual(error(null))
    expect(rateLimitedAnswer({ jsonrpc: '2.0', id: {}, method: 'ping' }, 'over', data)).toEqual(error(null))
  })

  it('uses an application-defined code: outside the JSON-RPC reserved range -32768 to -32000, which MCP partitions', () => {
    expect(RATE_LIMITED_CODE < -32768 || RATE_LIMITED_CODE > -32000).toBe(true)
  })
})

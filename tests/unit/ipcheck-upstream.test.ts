import { afterAll, describe, expect, it } from 'vitest'
import { fixture, fixtureJson, sendJson, startFakeUpstream } from '../../test-support/fake-upstream'

// The ip-api adapter against a loopback server: refusals, 429 handling and the request budget.

const sample = fixtureJson<Record<string, unknown>>('ip-api/json-all-fields-24.48.0.1.json')
const upstream = await startFakeUpstream((req, res) => {
  const ip = decodeURIComponent(req.path.replace('/json/', ''))
  if (ip === '24.48.3.1') return sendJson(res, 403, fixture('ip-api/json-fail-ssl-unavailable-https-free-endpoint-http403.json'))
  if (ip === '24.48.3.2') return sendJson(res, 429, 'Too Many Requests', { 'X-Rl': '0', 'X-Ttl': '17' })
  sendJson(res, 200, { ...sample, query: ip }, { 'X-Rl': '44', 'X-Ttl': '60' })
})
process.env.IP_API_URL = upstream.url
const { lookupIpApi, ipApiBudgets } = await import('@/lib/ipcheck/upstream')

afterAll(() => upstream.close())

describe('ip-api adapter', () => {
  it('parses an answer and tracks the budget from X-Rl / X-Ttl', async () => {
    expect(await lookupIpApi('24.48.3.0')).toMatchObject({ status: 'success', query: '24.48.3.0', offset: -14400 })
    expect(ipApiBudgets().single.remaining).toBe(44)
  })

  it("turns a 403 refusal into an upstream failure carrying ip-api's reason", async () => {
    await expect(lookupIpApi('24.48.3.1')).rejects.toMatchObject({ status: 502, message: expect.stringContaining('SSL unavailable') })
  })

  it('after a 429, stops calling until X-Ttl has passed', async () => {
    await expect(lookupIpApi('24.48.3.2')).rejects.toMatchObject({ status: 502, details: { retryAfterSeconds: 17 } })
    const before = upstream.requests.length
    await expect(lookupIpApi('24.48.3.3')).rejects.toMatchObject({ status: 502, details: { retryAfterSeconds: expect.any(Number) } })
    expect(upstream.requests.length).toBe(before)
  })
})

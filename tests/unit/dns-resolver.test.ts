import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeDoh } from '../../test-support/fake-doh'

// The resolver reads DOH_URL from config at import time, so the fake server starts first.
const doh = await startFakeDoh({
  records: {
    'example.org': [
      { type: 'MX', data: { preference: 20, exchange: 'b.mx.example.org' } },
      { type: 'MX', data: { preference: 10, exchange: 'a.mx.example.org' } },
      { type: 'TXT', data: ['v=spf1 include:_spf.example.net ', '-all'] },
      { type: 'A', data: '192.0.2.10' },
    ],
    'www.example.org': [{ type: 'CNAME', data: 'example.org' }],
    '_25._tcp.a.mx.example.org': [{ type: 'TLSA', data: { usage: 3, selector: 1, matchingType: 1, certificate: 'abcd' } }],
    '10.2.0.192.in-addr.arpa': [{ type: 'PTR', data: 'host.example.org' }],
  },
  secure: ['example.org'],
})
process.env.DOH_URL = doh.url
const dns = await import('@/lib/dns/resolver')

afterAll(() => doh.close())

describe('DoH resolver', () => {
  beforeAll(() => undefined)

  it('sorts MX records by priority and strips trailing dots', async () => {
    expect(await dns.resolveMx('example.org')).toEqual([
      { priority: 10, exchange: 'a.mx.example.org' },
      { priority: 20, exchange: 'b.mx.example.org' },
    ])
  })

  it('joins multi-string TXT records without a separator', async () => {
    expect(await dns.resolveTxt('example.org')).toEqual(['v=spf1 include:_spf.example.net -all'])
  })

  it('reports NXDOMAIN and the AD flag', async () => {
    const missing = await dns.resolve('nope.example.com', 'A')
    expect(missing.rcode).toBe('NXDOMAIN')
    expect(missing.authenticated).toBe(false)
    const secure = await dns.resolve('example.org', 'A')
    expect(secure.rcode).toBe('NOERROR')
    expect(secure.authenticated).toBe(true)
  })

  it('follows CNAMEs and keeps the chain apart from the records', async () => {
    const r = await dns.resolve('www.example.org', 'A')
    expect(r.records.map((x) => (x as { value: string }).value)).toEqual(['192.0.2.10'])
    expect(r.chain).toHaveLength(1)
  })

  it('decodes TLSA and PTR', async () => {
    const tlsa = await dns.resolve('_25._tcp.a.mx.example.org', 'TLSA')
    expect(tlsa.records[0]).toMatchObject({ type: 'TLSA', usage: 3, selector: 1, matchingType: 1, data: 'abcd' })
    expect(await dns.resolvePtr('192.0.2.10')).toEqual(['host.example.org'])
  })

  it('builds reverse names for IPv4 and IPv6', () => {
    expect(dns.reverseName('24.48.0.1')).toBe('1.0.48.24.in-addr.arpa')
    expect(dns.reverseName('2001:db8::1')).toBe('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa')
  })
})

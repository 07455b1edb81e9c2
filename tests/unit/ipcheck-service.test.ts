import { describe, expect, it } from 'vitest'
import { AppError } from '@/lib/errors'
import { IpApiAnswer, IpCheckResult, type IpApiSuccess } from '@/lib/ipcheck/schemas'
import { checkIp, checkIps, mapLinks, type IpCheckDeps } from '@/lib/ipcheck/service'
import { ipApiEndpoint, reshapeIpApi } from '@/lib/ipcheck/upstream'
import { fixtureJson } from '../../test-support/fake-upstream'

const sample = IpApiAnswer.parse(fixtureJson('ip-api/json-all-fields-24.48.0.1.json')) as IpApiSuccess

function deps(overrides: Partial<IpCheckDeps> = {}): IpCheckDeps & { looked: string[] } {
  const looked: string[] = []
  return {
    looked,
    lookup: async (a) => (looked.push(a), sample),
    lookupMany: async (list) => new Map(list.map((a) => (looked.push(a), [a, sample] as const))),
    resolvePtr: async () => ['modemcable001.0-48-24.mc.videotron.ca'],
    resolveAddresses: async () => [],
    homeHostname: undefined,
    ...overrides,
  }
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AppError)
  return error as AppError
}

describe('ip-api reshaping', () => {
  it('maps the recorded 24.48.0.1 answer to our metadata field by field', () => {
    expect(reshapeIpApi(sample)).toEqual({
      status: 'success',
      country: 'Canada',
      countryCode: 'CA',
      region: 'QC',
      regionName: 'Quebec',
      city: 'Montreal',
      zip: 'H3G',
      lat: 45.4995,
      lon: -73.5848,
      timezone: 'America/Toronto',
      utcOffset: -14400,
      isp: 'Le Groupe Videotron Ltee',
      org: 'Videotron Ltee',
      as: 'AS5769 Videotron Telecom Ltee',
      mobile: false,
      proxy: false,
      hosting: false,
    })
  })

  it('refuses an answer that lacks a field the metadata needs (the legacy sample has no offset)', () => {
    expect(IpApiAnswer.safeParse(fixtureJson('ip-api/json-legacy-fields-with-reverse-mobile-proxy-74.200.247.59.json')).success).toBe(false)
  })

  it('reads ip-api failure bodies', () => {
    const fail = IpApiAnswer.parse(fixtureJson<unknown[]>('ip-api/batch-with-invalid-query-item.json')[1])
    expect(fail).toEqual({ status: 'fail', message: 'invalid query', query: '2' })
  })

  it('uses the pro host only with a key, keeping a custom base (test server) as is', () => {
    expect(ipApiEndpoint({ IP_API_URL: 'http://ip-api.com', IP_API_KEY: undefined })).toEqual({ base: 'http://ip-api.com' })
    expect(ipApiEndpoint({ IP_API_URL: 'http://ip-api.com', IP_API_KEY: 'k' })).toEqual({ base: 'https://pro.ip-api.com', key: 'k' })
    expect(ipApiEndpoint({ IP_API_URL: 'http://127.0.0.1:9/', IP_API_KEY: 'k' })).toEqual({ base: 'http://127.0.0.1:9', key: 'k' })
  })
})

describe('checkIp', () => {
  it('builds the full result, valid against the response schema', async () => {
    const d = deps()
    const r = await checkIp({ ip: '24.48.0.1' }, '203.0.113.1', d)
    expect(IpCheckResult.safeParse(r).success).toBe(true)
    expect(r.result).toBe('24.48.0.1')
    expect(r.ipVersion).toBe(4)
    expect(r.metadata.reverse).toBeNull()
    expect(r.mapsUrl.map_a).toContain('45.4995')
    expect(r.mapsUrl.map_b).toContain('mlon=-73.5848')
    expect(r.mapsUrl.map_c).toContain('45.4995~-73.5848')
    expect(r.contacts.length).toBeGreaterThan(0)
    expect(d.looked).toEqual(['24.48.0.1'])
  })

  it('fills reverse from PTR only when asked, and falls back to the provider when DNS fails', async () => {
    expect((await checkIp({ ip: '24.48.0.1', reverseCheck: true }, 'x', deps())).metadata.reverse).toBe('modemcable001.0-48-24.mc.videotron.ca')
    expect((await checkIp({ ip: '24.48.0.1', reverseCheck: true }, 'x', deps({ resolvePtr: async () => [] }))).metadata.reverse).toBeNull()
    const dnsDown = deps({ resolvePtr: async () => Promise.reject(new AppError('upstream_failed', 'DoH down')) })
    expect((await checkIp({ ip: '24.48.0.1', reverseCheck: true }, 'x', dnsDown)).metadata.reverse).toBe(sample.reverse)
  })

  it('reads IPv4-mapped IPv6 as IPv4', async () => {
    const d = deps()
    const r = await checkIp({ ip: '::ffff:24.48.0.1' }, 'x', d)
    expect([r.result, r.ipVersion]).toEqual(['24.48.0.1', 4])
    expect(d.looked).toEqual(['24.48.0.1'])
  })

  it('answers private and malformed addresses with 400 and never asks the provider', async () => {
    const d = deps()
    expect((await rejection(checkIp({ ip: '192.168.1.1' }, 'x', d))).status).toBe(400)
    expect((await rejection(checkIp({ ip: '01.2.3.4' }, 'x', d))).status).toBe(400)
    expect(d.looked).toEqual([])
  })

  it("location=me (and no parameter at all) uses the caller's address", async () => {
    const d = deps()
    await checkIp({ location: 'me' }, '8.8.4.4', d)
    await checkIp({}, '2606:4700::1', d)
    expect(d.looked).toEqual(['8.8.4.4', '2606:4700::1'])
    expect((await rejection(checkIp({}, 'unknown', d))).status).toBe(404)
    expect((await rejection(checkIp({}, '127.0.0.1', d))).message).toContain('loopback')
  })

  it('location=home resolves the configured name; unset or unresolvable is 404', async () => {
    const d = deps({ homeHostname: 'home.example.net', resolveAddresses: async () => ['2606:4700::1', '24.48.0.1'] })
    expect((await checkIp({ location: 'home' }, 'x', d)).result).toBe('24.48.0.1')
    expect((await rejection(checkIp({ location: 'home' }, 'x', deps()))).status).toBe(404)
    expect((await rejection(checkIp({ location: 'home' }, 'x', deps({ homeHostname: 'gone.example.net' })))).status).toBe(404)
  })

  it('refuses ip and location together', async () => {
    expect((await rejection(checkIp({ ip: '24.48.0.1', location: 'me' }, 'x', deps()))).status).toBe(400)
  })

  it('maps ip-api "fail" answers: range/query problems are 400, anything else 502', async () => {
    const fail = (message: string) => deps({ lookup: async () => ({ status: 'fail', message, query: '24.48.0.1' }) })
    expect((await rejection(checkIp({ ip: '24.48.0.1' }, 'x', fail('reserved range')))).status).toBe(400)
    expect((await rejection(checkIp({ ip: '24.48.0.1' }, 'x', fail('quota exceeded')))).status).toBe(502)
  })

  it('gives null map links for an unknown position', () => {
    expect(mapLinks(0, 0)).toEqual({ map_a: null, map_b: null, map_c: null })
    expect(mapLinks(NaN, 3)).toEqual({ map_a: null, map_b: null, map_c: null })
  })
})

describe('checkIps', () => {
  it('answers each item on its own and looks each distinct address up once', async () => {
    const d = deps()
    const r = await checkIps({ ips: ['24.48.0.1', '10.0.0.1', 'nope', '::ffff:24.48.0.1'] }, d)
    expect(r.results.map((x) => [x.query, x.lookup?.result ?? null, x.error === null])).toEqual([
      ['24.48.0.1', '24.48.0.1', true],
      ['10.0.0.1', null, false],
      ['nope', null, false],
      ['::ffff:24.48.0.1', '24.48.0.1', true],
    ])
    expect(d.looked).toEqual(['24.48.0.1'])
  })

  it('turns a failed batch call into per-item errors', async () => {
    const d = deps({ lookupMany: async () => Promise.reject(new AppError('upstream_failed', 'ip-api.com request limit reached')) })
    const r = await checkIps({ ips: ['24.48.0.1', '10.0.0.1'] }, d)
    expect(r.results[0]).toEqual({ query: '24.48.0.1', lookup: null, error: 'ip-api.com request limit reached' })
    expect(r.results[1].error).toContain('private')
  })
})

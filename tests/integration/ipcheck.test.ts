import type { ServerResponse } from 'node:http'
import IORedis from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { startFakeDoh } from '../../test-support/fake-doh'
import { fixtureJson, sendJson, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../../test-support/fake-upstream'
import { loadContract } from '../../test-support/openapi'

// /api/ipcheck through the built server, against a loopback ip-api.com replaying the recorded
// 24.48.0.1 answer (with `query` set to the address asked for) and a loopback DoH server.

const TIMEOUT_MS = 1500
const MAX_BYTES = 64 * 1024
const sample = fixtureJson<Record<string, unknown>>('ip-api/json-all-fields-24.48.0.1.json')
const answerFor = (ip: string) => ({ ...sample, query: ip })

/** Per-address behaviour of the fake ip-api; anything not listed gets the sample. */
const faults: Record<string, (res: ServerResponse) => void> = {
  '24.48.1.1': () => undefined, // never answers
  '24.48.1.2': (res) => sendJson(res, 500, { error: 'boom' }),
  '24.48.1.3': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"status":"success","query":')
  },
  '24.48.1.4': (res) => sendJson(res, 200, { ...answerFor('24.48.1.4'), padding: 'x'.repeat(MAX_BYTES * 2) }),
  '24.48.1.5': (res) => {
    // Headers at once, then a body that trickles in past the deadline.
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"status":"success",')
    const timer = setInterval(() => res.write(' '), 200)
    res.on('close', () => clearInterval(timer))
  },
  '24.48.1.6': (res) => sendJson(res, 200, { status: 'fail', message: 'reserved range', query: '24.48.1.6' }, { 'X-Rl': '40', 'X-Ttl': '50' }),
  '24.48.9.1': (res) => sendJson(res, 200, answerFor('24.48.9.1'), { 'X-Rl': '0', 'X-Ttl': '30' }),
}

function ipApi(req: ReceivedRequest, res: ServerResponse) {
  if (req.path === '/batch') {
    const ips = JSON.parse(req.body.toString()) as string[]
    return sendJson(res, 200, ips.map(answerFor), { 'X-Rl': '14', 'X-Ttl': '60' })
  }
  const ip = decodeURIComponent(req.path.replace(/^\/json\//, ''))
  const fault = faults[ip]
  if (fault) return fault(res)
  sendJson(res, 200, answerFor(ip), { 'X-Rl': '40', 'X-Ttl': '50' })
}

let app: RunningApp
let upstream: FakeUpstream
let doh: Awaited<ReturnType<typeof startFakeDoh>>
let contract: Awaited<ReturnType<typeof loadContract>>

const calls = (ip: string) => upstream.requests.filter((r) => r.path === `/json/${ip}`).length

async function get(query: string, headers: Record<string, string> = {}) {
  const started = Date.now()
  const res = await fetch(`${app.url}/api/ipcheck${query}`, { headers })
  const body = await res.json()
  contract.expectValid('GET', '/api/ipcheck', res.status, body)
  return { status: res.status, body, headers: res.headers, ms: Date.now() - started }
}

async function post(payload: unknown) {
  const res = await fetch(`${app.url}/api/ipcheck`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) })
  const body = await res.json()
  contract.expectValid('POST', '/api/ipcheck', res.status, body)
  return { status: res.status, body }
}

beforeAll(async () => {
  upstream = await startFakeUpstream(ipApi)
  doh = await startFakeDoh({
    records: {
      'home.example.net': [{ type: 'A', data: '24.48.0.30' }],
      '40.0.48.24.in-addr.arpa': [{ type: 'PTR', data: 'modemcable040.0-48-24.mc.videotron.ca' }],
    },
  })
  app = await startApp({
    IP_API_URL: upstream.url,
    DOH_URL: doh.url,
    HOME_DDNS_HOSTNAME: 'home.example.net',
    TRUSTED_IP_HEADER: 'x-forwarded-for',
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
    UPSTREAM_MAX_BYTES: String(MAX_BYTES),
    SUPPORT_EMAIL: 'help@example.org',
  })
  contract = await loadContract(app.url)
})

afterAll(async () => {
  await app?.stop()
  await upstream?.close()
  await doh?.close()
})

describe('GET /api/ipcheck', () => {
  it('returns the result for 24.48.0.1, asking ip-api for exactly the needed fields', async () => {
    const r = await get('?ip=24.48.0.1')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({
      result: '24.48.0.1',
      ipVersion: 4,
      metadata: {
        status: 'success',
        country: 'Canada',
        city: 'Montreal',
        zip: 'H3G',
        utcOffset: -14400,
        as: 'AS5769 Videotron Telecom Ltee',
        reverse: null,
        hosting: false,
      },
      contacts: ['help@example.org'],
      support: { email: 'help@example.org' },
    })
    expect(Object.keys(r.body.metadata)).toHaveLength(18)
    expect(r.body.mapsUrl.map_b).toContain('mlat=45.4995')
    const sent = upstream.requests.find((q) => q.path === '/json/24.48.0.1')!
    expect(sent.query.get('fields')).toBe(
      'status,message,query,country,countryCode,region,regionName,city,zip,lat,lon,timezone,offset,isp,org,as,reverse,mobile,proxy,hosting',
    )
    expect(sent.query.has('key')).toBe(false)
  })

  it('serves a repeated address from the cache', async () => {
    await get('?ip=24.48.0.10')
    const again = await get('?ip=24.48.0.10')
    expect(again.status).toBe(200)
    expect(calls('24.48.0.10')).toBe(1)
  })

  it('looks up IPv6 and reads IPv4-mapped IPv6 as IPv4', async () => {
    const v6 = await get('?ip=2606:4700:4700::1111')
    expect([v6.status, v6.body.result, v6.body.ipVersion]).toEqual([200, '2606:4700:4700::1111', 6])
    const mapped = await get('?ip=::ffff:24.48.0.11')
    expect([mapped.status, mapped.body.result, mapped.body.ipVersion]).toEqual([200, '24.48.0.11', 4])
    expect(calls('24.48.0.11')).toBe(1)
  })

  it('adds the PTR name from DNS only with reverseCheck=true', async () => {
    expect((await get('?ip=24.48.0.40&reverseCheck=true')).body.metadata.reverse).toBe('modemcable040.0-48-24.mc.videotron.ca')
    expect((await get('?ip=24.48.0.40&reverseCheck=false')).body.metadata.reverse).toBeNull()
  })

  it("location=me and no parameters use the caller's address; location=home resolves through DNS", async () => {
    const me = await get('?location=me', { 'x-forwarded-for': '24.48.0.20' })
    expect([me.status, me.body.result]).toEqual([200, '24.48.0.20'])
    const bare = await get('', { 'x-forwarded-for': '24.48.0.21' })
    expect([bare.status, bare.body.result]).toEqual([200, '24.48.0.21'])
    const home = await get('?location=home')
    expect([home.status, home.body.result]).toEqual([200, '24.48.0.30'])
  })

  it.each([
    ['?ip=01.2.3.4', 'not a valid'],
    ['?ip=0x7f.1', 'not a valid'],
    ['?ip=1.2.3.4/24', 'range'],
    ['?ip=example.com', 'not a valid'],
    ['?ip=10.0.0.1', 'private'],
    ['?ip=127.0.0.1', 'loopback'],
    ['?ip=::1', 'loopback'],
    ['?ip=192.0.2.1', 'reserved'],
    ['?location=work', 'location'],
    ['?ip=24.48.0.1&location=me', 'either'],
    ['?location=me', 'loopback'], // no forwarding header: the caller is 127.0.0.1
  ])('%s is a 400 {status, message} without calling ip-api', async (query, text) => {
    const before = upstream.requests.length
    const r = await get(query)
    expect(r.status).toBe(400)
    expect(r.body.status).toBe('error')
    expect(r.body.message).toContain(text)
    expect(upstream.requests.length).toBe(before)
  })

  it('maps an ip-api "fail" answer to a 400', async () => {
    const r = await get('?ip=24.48.1.6')
    expect([r.status, r.body.status]).toEqual([400, 'error'])
    expect(r.body.message).toContain('reserved range')
  })

  it.each([
    ['timeout', '24.48.1.1', 504],
    ['HTTP 500', '24.48.1.2', 502],
    ['malformed JSON', '24.48.1.3', 502],
    ['oversize body', '24.48.1.4', 502],
    ['slow body', '24.48.1.5', 504],
  ])('upstream %s (%s) → %i {status, message} within the time budget', async (_name, ip, status) => {
    const r = await get(`?ip=${ip}`)
    expect(r.status).toBe(status)
    expect(r.body.status).toBe('error')
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 4000)
  })

  it('stays up after the faults', async () => {
    expect((await fetch(`${app.url}/api/health`)).status).toBe(200)
    expect((await get('?ip=24.48.0.12')).status).toBe(200)
  })
})

describe('POST /api/ipcheck', () => {
  it('answers per item and fetches the uncached addresses in one batch call', async () => {
    const r = await post({ ips: ['24.48.0.70', '10.0.0.1', 'nope', '24.48.0.71', '24.48.0.10'] })
    expect(r.status).toBe(200)
    expect(
      r.body.results.map((x: { query: string; lookup: { result: string } | null; error: string | null }) => [
        x.query,
        x.lookup?.result ?? null,
        x.error === null,
      ]),
    ).toEqual([
      ['24.48.0.70', '24.48.0.70', true],
      ['10.0.0.1', null, false],
      ['nope', null, false],
      ['24.48.0.71', '24.48.0.71', true],
      ['24.48.0.10', '24.48.0.10', true],
    ])
    const batches = upstream.requests.filter((q) => q.path === '/batch')
    expect(batches).toHaveLength(1)
    // 24.48.0.10 was cached by an earlier GET, so only the two new addresses were sent.
    expect(JSON.parse(batches[0].body.toString())).toEqual(['24.48.0.70', '24.48.0.71'])
    expect(batches[0].query.get('fields')).toContain('offset')

    await post({ ips: ['24.48.0.71', '24.48.0.70'] })
    expect(upstream.requests.filter((q) => q.path === '/batch')).toHaveLength(1)
  })

  it.each([[{ ips: [] }], [{ ips: Array.from({ length: 101 }, (_, i) => `24.48.2.${i}`) }], [{ addresses: ['24.48.0.1'] }]])(
    'refuses a bad body with 400',
    async (payload) => {
      const r = await post(payload)
      expect([r.status, r.body.status]).toEqual([400, 'error'])
    },
  )
})

// Redis database 7 is reserved for this suite.
describe('with a Redis store', () => {
  it('a second server instance answers from the cache the first one filled', async () => {
    const REDIS_URL = 'redis://127.0.0.1:6379/7'
    const redis = new IORedis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
    await redis.connect()
    await redis.flushdb()
    await redis.quit()
    for (let i = 0; i < 2; i++) {
      const other = await startApp({ IP_API_URL: upstream.url, DOH_URL: doh.url, REDIS_URL })
      try {
        const res = await fetch(`${other.url}/api/ipcheck?ip=24.48.5.1`)
        const body = await res.json()
        contract.expectValid('GET', '/api/ipcheck', res.status, body)
        expect([res.status, body.result]).toEqual([200, '24.48.5.1'])
      } finally {
        await other.stop()
      }
    }
    expect(calls('24.48.5.1')).toBe(1)
  })
})

// Last: exhausting the budget affects every later ip-api call of this server.
describe('ip-api request budget', () => {
  it('stops calling when X-Rl reaches 0 and answers 502 with Retry-After', async () => {
    expect((await get('?ip=24.48.9.1')).status).toBe(200)
    const r = await get('?ip=24.48.9.2')
    expect(r.status).toBe(502)
    expect(r.body.message).toContain('limit')
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(30)
    expect(calls('24.48.9.2')).toBe(0)
    // Cached answers are still served.
    expect((await get('?ip=24.48.0.10')).status).toBe(200)
  })
})

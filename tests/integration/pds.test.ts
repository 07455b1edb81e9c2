import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { blobRef, createFakePds, postRecord, type FakeAccount } from '../../test-support/fake-pds'
import { fixture, sendJson, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { loadContract } from '../../test-support/openapi'

// /api/pds end to end: the built app against a fake PDS, PLC directory and BetterStack on loopback.

const B32 = 'abcdefghijklmnopqrstuvwxyz234567'
const didOf = (i: number) =>
  `did:plc:${[...i.toString(32)]
    .map((c) => B32[parseInt(c, 32)])
    .join('')
    .padStart(24, 'a')}`
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const NOW = Date.now()
const YEAR = new Date(NOW).getUTCFullYear()
const YEAR_START = Date.UTC(YEAR, 0, 1)
const TOTAL = 1203
const DEACTIVATED = [2, 3, 4, 5, 6]
const ACTIVE = TOTAL - DEACTIVATED.length
const MONITOR = '258338'

function accounts(): FakeAccount[] {
  const alice: FakeAccount = {
    did: didOf(0),
    handle: 'alice.bsky.social',
    records: {
      'app.bsky.feed.post': [
        postRecord(new Date(YEAR_START + 1000).toISOString(), YEAR_START + 1000, 1),
        postRecord(new Date(YEAR_START + 1000).toISOString(), YEAR_START + 1000, 2),
        {
          ...postRecord(new Date(YEAR_START + 2000).toISOString()),
          value: {
            $type: 'app.bsky.feed.post',
            text: 'two pictures',
            createdAt: new Date(YEAR_START + 2000).toISOString(),
            embed: {
              $type: 'app.bsky.embed.images',
              images: [
                { alt: 'a', image: blobRef('bafkreia', 1000) },
                { alt: 'b', image: blobRef('bafkreib', 2000) },
              ],
            },
          },
        },
        postRecord(new Date(NOW - 60_000).toISOString()),
        // future-dated: written now, claiming next year
        postRecord(`${YEAR + 1}-02-01T00:00:00.000Z`, NOW - 30_000),
        postRecord(`${YEAR - 1}-06-01T10:00:00.000Z`),
        postRecord(`${YEAR - 1}-06-01T11:00:00.000Z`),
      ],
      'app.bsky.feed.like': Array.from({ length: 30 }, (_, i) => ({ rkey: `3l${String(i).padStart(11, '2')}`, value: { subject: {} } })),
    },
    // bafkreic is in no record: it must be sized with getBlob
    blobs: { bafkreia: 1000, bafkreib: 2000, bafkreic: 500 },
  }
  const bob: FakeAccount = {
    did: didOf(1),
    records: {
      'app.bsky.feed.post': [postRecord(new Date(YEAR_START + 7_200_000).toISOString())],
      'app.bsky.actor.profile': [{ rkey: 'self', value: { $type: 'app.bsky.actor.profile', displayName: 'Bob', avatar: blobRef('bafkreid', 300) } }],
    },
    blobs: { bafkreid: 300 },
  }
  const list: FakeAccount[] = [alice, bob]
  for (let i = 2; i < TOTAL; i++) {
    const inactive = DEACTIVATED.includes(i)
    list.push({
      did: didOf(i),
      active: !inactive,
      // posts of deactivated accounts must not be counted
      records: inactive ? { 'app.bsky.feed.post': [postRecord(new Date(YEAR_START + 5000).toISOString())] } : undefined,
      blobs: inactive ? { bafkreiz: 99 } : undefined,
    })
  }
  return list
}

let upstream: FakeUpstream
let app: RunningApp
let contract: Awaited<ReturnType<typeof loadContract>>
const pds = createFakePds({
  accounts: accounts(),
  describeServer: fixture('atproto/describeServer-maitake.us-west.host.bsky.network.json'),
  health: fixture('atproto/health-pds-0.2.2-beta.2.json'),
  resolve: {
    'bsky.app': fixture('atproto/resolveHandle-bsky.app.json'),
    'atproto.com': '{"did":"did:plc:ewvi7nxzyoun6zhxrhs64oiz"}',
  },
  // an older or third-party server may cap pages below the 1000 we ask for
  pageCap: 500,
  hangMs: 4000,
})

beforeAll(async () => {
  upstream = await startFakeUpstream(async (req, res) => {
    if (req.path.startsWith('/plc/')) {
      const did = decodeURIComponent(req.path.slice(5))
      if (did === 'did:plc:ewvi7nxzyoun6zhxrhs64oiz') return sendJson(res, 200, fixture('atproto/plc-did-document-atproto.com-multikey.json'))
      return sendJson(res, 404, { message: `DID not registered: ${did}` })
    }
    if (req.path === `/api/v2/monitors/${MONITOR}/sla`) {
      if (req.headers.authorization !== 'Bearer bs-token') return sendJson(res, 401, { errors: 'Invalid Team API token' })
      if ((req.query.get('from') ?? '') > '2090') return sendJson(res, 400, fixture('betterstack/monitor-sla-400-invalid-date-range-docs-example.json'))
      return sendJson(res, 200, fixture('betterstack/monitor-sla-200-docs-example.json'))
    }
    return pds.handler(req, res)
  })
  app = await startApp({
    PDS_URL: upstream.url,
    PLC_URL: `${upstream.url}/plc`,
    BETTERSTACK_API_URL: `${upstream.url}/api/v2`,
    BETTERSTACK_API_TOKEN: 'bs-token',
    BETTERSTACK_MONITOR_ID: MONITOR,
    UPSTREAM_TIMEOUT_MS: '1000',
  })
  contract = await loadContract(app.url)
})

afterAll(async () => {
  await app?.stop()
  await upstream?.close()
})

/** GET through the app; every answer is checked against the OpenAPI document. */
async function get(path: string, target: () => RunningApp = () => app, check = () => contract) {
  const res = await fetch(`${target().url}${path}`)
  const body = await res.json()
  check().expectValid('GET', path, res.status, body)
  return { status: res.status, body, headers: res.headers }
}

const since = (mark: number) => upstream.requests.slice(mark)
const calls = (mark: number, nsid: string) => pds.callsTo(since(mark), nsid)

describe('GET /api/pds/repos', () => {
  it('pages listRepos past 500 repositories, following the cursor to the end', async () => {
    const mark = upstream.requests.length
    const { status, body, headers } = await get('/api/pds/repos')
    expect(status).toBe(200)
    expect([body.total, body.active, body.inactive]).toEqual([TOTAL, ACTIVE, DEACTIVATED.length])
    expect(new Set(body.repos.map((r: { did: string }) => r.did)).size).toBe(TOTAL)
    expect(body.repos[3]).toEqual({ did: didOf(3), head: 'bafyreib2rxk3rh6kzwq', rev: '3l3qo2vuowo2b', active: false, status: 'deactivated' })
    expect(body.repos[7].status).toBeNull()
    const pages = calls(mark, 'com.atproto.sync.listRepos')
    // 500 + 500 + 203 (short pages do not end the listing) + the empty page that does
    expect(pages.map((r) => r.query.get('cursor'))).toEqual([null, didOf(499), didOf(999), didOf(1202)])
    expect(pages.every((r) => r.query.get('limit') === '1000')).toBe(true)
    expect(headers.get('cache-control')).toBe('public, max-age=60')
  })

  it('serves a repeat from the cache', async () => {
    const mark = upstream.requests.length
    expect((await get('/api/pds/repos')).body.total).toBe(TOTAL)
    expect(calls(mark, 'com.atproto.sync.listRepos')).toHaveLength(0)
  })
})

describe('GET /api/pds/verifyHandle', () => {
  it('reports a free handle as available, resolving it in lower case', async () => {
    const mark = upstream.requests.length
    const { status, body } = await get('/api/pds/verifyHandle?handle=NewUser.bsky.social')
    expect(status).toBe(200)
    expect(body).toEqual({ handle: 'newuser.bsky.social', available: true, reason: null, did: null, verified: null })
    expect(calls(mark, 'com.atproto.identity.resolveHandle').map((r) => r.query.get('handle'))).toEqual(['newuser.bsky.social'])
  })

  it('reports a handle that resolves as taken, checking the DID document both ways', async () => {
    const verified = await get('/api/pds/verifyHandle?handle=atproto.com')
    expect(verified.body).toEqual({
      handle: 'atproto.com',
      available: false,
      reason: 'already in use: the domain points at did:plc:ewvi7nxzyoun6zhxrhs64oiz',
      did: 'did:plc:ewvi7nxzyoun6zhxrhs64oiz',
      verified: true,
    })
    const unverified = await get('/api/pds/verifyHandle?handle=bsky.app')
    expect(unverified.body).toMatchObject({ available: false, did: 'did:plc:z72i7hdynmk6r22z27h6tvur', verified: false })
  })

  it('answers reserved names under the service domain without resolving them', async () => {
    const mark = upstream.requests.length
    const { status, body } = await get('/api/pds/verifyHandle?handle=admin.bsky.social')
    expect(status).toBe(200)
    expect(body).toMatchObject({ available: false, reason: '"admin" is a reserved name on this service' })
    expect(calls(mark, 'com.atproto.identity.resolveHandle')).toHaveLength(0)
  })

  it.each([
    ['handle=ab.bsky.social', 'under .bsky.social the name before the domain must be at least 3 characters'],
    ['handle=a.b.bsky.social', 'no dots'],
    ['handle=alice..example.com', 'empty label'],
    ['handle=%40alice.bsky.social', 'leading "@"'],
    ['handle=alice.local', '".local" is reserved'],
    ['handle=al_ice.example.com', 'found "_"'],
    ['', 'handle'],
  ])('400 for %s naming the rule', async (query, rule) => {
    const { status, body } = await get(`/api/pds/verifyHandle?${query}`)
    expect(status).toBe(400)
    expect(body.error.code).toBe('invalid_input')
    expect(body.error.message).toContain(rule)
  })
})

describe('GET /api/pds/blueskyHeatmap', () => {
  it('counts posts of active accounts per day, leaving out future-dated ones', async () => {
    const mark = upstream.requests.length
    const { status, body, headers } = await get('/api/pds/blueskyHeatmap')
    expect(status).toBe(200)
    const expected: Record<string, number> = {}
    for (const ms of [YEAR_START + 1000, YEAR_START + 1000, YEAR_START + 2000, YEAR_START + 7_200_000, NOW - 60_000])
      expected[dayOf(ms)] = (expected[dayOf(ms)] ?? 0) + 1
    expect(body).toEqual(expected)
    expect(headers.get('cache-control')).toBe('public, max-age=900')
    const listed = calls(mark, 'com.atproto.repo.listRecords')
    // One page per active account, plus the empty closing page for bob. Alice's page ends with a
    // post written last year, so her listing stops there without asking for the next page.
    expect(listed).toHaveLength(ACTIVE + 1)
    expect(listed.filter((r) => r.query.get('repo') === didOf(0))).toHaveLength(1)
    expect(listed.filter((r) => r.query.get('repo') === didOf(1)).map((r) => r.query.has('cursor'))).toEqual([false, true])
    expect(listed.every((r) => r.query.get('collection') === 'app.bsky.feed.post' && r.query.get('limit') === '100')).toBe(true)
    expect(listed.some((r) => DEACTIVATED.map(didOf).includes(r.query.get('repo')!))).toBe(false)
  })

  it('serves a repeat from the cache', async () => {
    const mark = upstream.requests.length
    await get('/api/pds/blueskyHeatmap')
    await get(`/api/pds/blueskyHeatmap?forYear=${YEAR}`)
    expect(calls(mark, 'com.atproto.repo.listRecords')).toHaveLength(0)
  })

  it('counts a past year on its own', async () => {
    const { status, body } = await get(`/api/pds/blueskyHeatmap?forYear=${YEAR - 1}`)
    expect(status).toBe(200)
    expect(body).toEqual({ [`${YEAR - 1}-06-01`]: 2 })
  })

  it.each(['2019', String(YEAR + 1), 'abc', '2024.5'])('400 for forYear=%s', async (forYear) => {
    const { status, body } = await get(`/api/pds/blueskyHeatmap?forYear=${forYear}`)
    expect(status).toBe(400)
    expect(body.error.message).toContain('forYear')
  })
})

describe('GET /api/pds/blobStorageUsageBytes', () => {
  it('sums one account from its records, asking getBlob only for the blob no record sizes', async () => {
    const mark = upstream.requests.length
    const { status, body } = await get(`/api/pds/blobStorageUsageBytes/${didOf(0)}`)
    expect(status).toBe(200)
    expect(body).toEqual({ did: didOf(0), usageBytes: 3500, blobCount: 3, accountCount: 1 })
    expect(calls(mark, 'com.atproto.sync.getBlob').map((r) => [r.method, r.query.get('cid')])).toEqual([['HEAD', 'bafkreic']])
    // likes hold no blobs and are never read
    expect(calls(mark, 'com.atproto.repo.listRecords').some((r) => r.query.get('collection') === 'app.bsky.feed.like')).toBe(false)
  })

  it('sums every active account', async () => {
    const { status, body, headers } = await get('/api/pds/blobStorageUsageBytes')
    expect(status).toBe(200)
    expect(body).toEqual({ did: null, usageBytes: 3800, blobCount: 4, accountCount: ACTIVE })
    expect(typeof body.usageBytes).toBe('number')
    expect(headers.get('cache-control')).toBe('public, max-age=600')
    // the reference API's older path answers the same, from the cache
    const mark = upstream.requests.length
    expect((await get('/api/pds/blobStorageStats')).body).toEqual(body)
    expect(since(mark)).toHaveLength(0)
  })

  it('404 for a DID not on this PDS, and for a deactivated account', async () => {
    const unknown = await get(`/api/pds/blobStorageUsageBytes/${didOf(5000)}`)
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toMatchObject({ code: 'not_found', message: `No account ${didOf(5000)} on this PDS.` })
    const deactivated = await get(`/api/pds/blobStorageUsageBytes/${didOf(3)}`)
    expect(deactivated.status).toBe(404)
    expect(deactivated.body.error.message).toContain('RepoDeactivated')
  })

  it.each(['did:plc:123', 'alice.bsky.social', 'did:key:zQ3shXjHeiBuRCKmM36cuYnm7YEMzhGnCmCyW92sRJ9pribSF'])('400 for %s', async (did) => {
    const mark = upstream.requests.length
    const { status, body } = await get(`/api/pds/blobStorageUsageBytes/${did}`)
    expect(status).toBe(400)
    expect(body.error.message).toMatch(/^did: must be a did:plc:/)
    expect(since(mark)).toHaveLength(0)
  })
})

describe('GET /api/pds/uptimeStats', () => {
  it('flattens the SLA report and sends the token and range', async () => {
    const mark = upstream.requests.length
    const { status, body } = await get('/api/pds/uptimeStats?startDate=2026-01-01&endDate=2026-01-31')
    expect(status).toBe(200)
    expect(body).toEqual({ availability: 99.98, total_downtime: 600, number_of_incidents: 3, longest_incident: 300, average_incident: 200 })
    const sent = since(mark)
    expect(sent).toHaveLength(1)
    expect([sent[0].query.get('from'), sent[0].query.get('to'), sent[0].headers.authorization]).toEqual(['2026-01-01', '2026-01-31', 'Bearer bs-token'])
    await get('/api/pds/uptimeStats?startDate=2026-01-01&endDate=2026-01-31')
    expect(since(mark)).toHaveLength(1)
  })

  it("passes BetterStack's 400 on as a 400 with its message", async () => {
    const { status, body } = await get('/api/pds/uptimeStats?startDate=2099-01-01')
    expect(status).toBe(400)
    expect(body.error.message).toContain('The data range is invalid.')
  })

  it.each([
    ['startDate=2026-02-30', 'startDate'],
    ['startDate=2026-03-01&endDate=2026-02-01', 'startDate must not be after endDate'],
    ['endDate=yesterday', 'endDate'],
  ])('400 for %s without asking BetterStack', async (query, message) => {
    const mark = upstream.requests.length
    const { status, body } = await get(`/api/pds/uptimeStats?${query}`)
    expect(status).toBe(400)
    expect(body.error.message).toContain(message)
    expect(since(mark)).toHaveLength(0)
  })
})

describe('GET /api/pds/health', () => {
  it('reports the version and the server description', async () => {
    const { status, body } = await get('/api/pds/health')
    expect(status).toBe(200)
    expect(body).toMatchObject({
      status: 'ok',
      version: '0.2.2-beta.2',
      error: null,
      server: {
        did: 'did:web:maitake.us-west.host.bsky.network',
        availableUserDomains: ['.bsky.social'],
        inviteCodeRequired: true,
        blobUploadLimit: 314572800,
        contactEmail: null,
      },
    })
  })
})

describe('upstream faults', () => {
  it.each([
    ['status500', 502, 'PDS answered HTTP 500'],
    ['malformed', 502, 'PDS sent a response that could not be used (invalid JSON)'],
    ['timeout', 504, 'PDS did not answer within 1000 ms'],
  ] as const)('_health %s → %i, and the server stays up', async (fault, status, message) => {
    pds.faults.set('_health', fault)
    try {
      const res = await get('/api/pds/health')
      expect(res.status).toBe(status)
      expect(res.body.error.message).toContain(message)
    } finally {
      pds.faults.delete('_health')
    }
    expect((await get('/api/pds/health')).status).toBe(200)
  })

  it('resolveHandle failing → 502', async () => {
    pds.faults.set('com.atproto.identity.resolveHandle', 'status500')
    try {
      const { status, body } = await get('/api/pds/verifyHandle?handle=someone.bsky.social')
      expect(status).toBe(502)
      expect(body.error.code).toBe('upstream_failed')
    } finally {
      pds.faults.delete('com.atproto.identity.resolveHandle')
    }
  })

  it('a listing that times out midway → 504, not cached, then answered once the PDS recovers', async () => {
    pds.faults.set('com.atproto.repo.listRecords', 'timeout')
    const mark = upstream.requests.length
    try {
      const { status, body } = await get(`/api/pds/blueskyHeatmap?forYear=${YEAR - 2}`)
      expect(status).toBe(504)
      expect(body.error.code).toBe('upstream_timeout')
      // the first failure stops the fan-out: no new accounts are started after it
      expect(calls(mark, 'com.atproto.repo.listRecords').length).toBeLessThan(20)
    } finally {
      pds.faults.delete('com.atproto.repo.listRecords')
    }
    const again = await get(`/api/pds/blueskyHeatmap?forYear=${YEAR - 2}`)
    expect([again.status, again.body]).toEqual([200, {}])
  })
})

describe('not configured', () => {
  let bare: RunningApp
  let bareContract: Awaited<ReturnType<typeof loadContract>>
  beforeAll(async () => {
    bare = await startApp({})
    bareContract = await loadContract(bare.url)
  })
  afterAll(async () => bare?.stop())

  it.each([
    '/api/pds/repos',
    '/api/pds/verifyHandle?handle=alice.bsky.social',
    '/api/pds/blueskyHeatmap',
    '/api/pds/blobStorageUsageBytes',
    `/api/pds/blobStorageUsageBytes/${didOf(0)}`,
    '/api/pds/health',
  ])('%s → 503 naming PDS_URL', async (path) => {
    const { status, body } = await get(
      path,
      () => bare,
      () => bareContract,
    )
    expect(status).toBe(503)
    expect(body.error.code).toBe('not_configured')
    expect(body.error.message).toContain('set PDS_URL')
  })

  it('/api/pds/uptimeStats → 503 naming the BetterStack variables', async () => {
    const { status, body } = await get(
      '/api/pds/uptimeStats',
      () => bare,
      () => bareContract,
    )
    expect(status).toBe(503)
    expect(body.error.message).toContain('BETTERSTACK_API_TOKEN and BETTERSTACK_MONITOR_ID')
  })
})

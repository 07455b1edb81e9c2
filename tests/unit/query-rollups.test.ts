import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import type { Database } from '@/lib/db/client'
import { DATASETS, type DatasetId } from '@/lib/datasets/catalog'
import { ingestBatch } from '@/lib/ingest/logpush'
import { writeRequestLog, type RequestLogRow } from '@/lib/request-log/store'
import { PERCENTILE_TOLERANCE, percentileFromHistogram, rebuildRollup } from '@/lib/datasets/storage/rollups'
import { seed } from '@/lib/datasets/seed'
import { runDashboard, runQuery, type DashboardResult } from '@/lib/query/service'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Property test: on random rows (written in random batches, some of them twice) and random ranges
// and filters, every dashboard panel and count read from the rollups equals the same one read from
// the raw rows: counts exactly, latency percentiles within the histogram's stated tolerance
// (PERCENTILE_TOLERANCE relative, plus 1 ms, plus 0.01 ms of rounding). The seed is printed on
// failure; set ROLLUP_PROPERTY_SEED to replay one.

const SEED = Number(process.env.ROLLUP_PROPERTY_SEED ?? Date.now() % 1_000_000)
const CASES = 40

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
function generator(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] }
}

const BASE = Date.parse('2026-04-01T00:00:00Z')
const DAYS = 3
const MINUTES = DAYS * 1440

let testDatabase: TestDatabase
let database: Database

function requestRows(r: ReturnType<typeof generator>, n: number): RequestLogRow[] {
  return Array.from({ length: n }, (_, i) => {
    const status = r.pick([200, 200, 200, 201, 304, 400, 404, 429, 500, 503])
    return {
      time: new Date(BASE + r.int(DAYS * 86_400_000)),
      requestId: `prop-${i}`,
      method: r.pick(['GET', 'GET', 'POST']),
      route: `/api/r${r.int(8)}`,
      query: '',
      status,
      durationMs: r.next() < 0.05 ? 0 : Math.round(Math.exp(r.next() * 9) * 10) / 100,
      clientIp: r.pick([null, '198.51.100.0', '203.0.113.0', '2001:db8::']),
      country: r.pick([null, 'FR', 'US', 'DE']),
      userAgent: r.pick([null, 'curl/8.7.1', 'Mozilla/5.0 (X11)', 'python-requests/2.32']),
      referrer: null,
      apiKeyPresent: r.next() < 0.3,
      rateLimited: status === 429,
      mcpTool: r.pick([null, null, null, 'list_domains', 'get_pds_repos']),
    }
  })
}

function sessionLines(r: ReturnType<typeof generator>, n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      SessionStartTime: new Date(BASE + r.int(DAYS * 86_400_000)).toISOString(),
      SessionID: `s-${i}`,
      Protocol: r.pick(['tcp', 'udp']),
      SNI: r.pick(['a.example', 'b.example', null]),
      Email: r.pick(['ana@example.com', 'ben@example.com']),
      ClientTLSVersion: r.pick(['TLSv1.3', 'TLSv1.2', null]),
      ConnectionReuse: r.next() < 0.4,
      BytesSent: r.int(100_000),
      BytesReceived: r.int(1_000_000),
    }),
  )
}

const REQUEST_FILTERS = (r: ReturnType<typeof generator>) => [
  '',
  `status >= ${r.pick([400, 404, 500])}`,
  'status BETWEEN 400 AND 499',
  'status IN (200, 404)',
  `route = '/api/r${r.int(8)}'`,
  "route LIKE '/api/r1%'",
  'country IS NULL',
  "country = 'FR'",
  "country <> 'FR'",
  'mcp_tool IS NOT NULL',
  'rate_limited = true',
  'NOT api_key_present',
  "client_ip << '198.51.100.0/24'",
  "lower(user_agent) LIKE 'mozilla%'",
  "method = 'GET'",
  'duration_ms > 50',
  "status = 200 AND country = 'FR'",
]

const SESSION_FILTERS = (r: ReturnType<typeof generator>) => [
  '',
  "protocol = 'udp'",
  'connection_reuse',
  "client_tls_version IS DISTINCT FROM 'TLSv1.3'",
  `sni = '${r.pick(['a.example', 'b.example'])}'`,
  "email = 'ana@example.com' AND protocol = 'tcp'",
]

/**
 * A random range: inside one hour, across hours, or whole days; half of them of whole minutes,
 * half given to the millisecond (the rollup's interior, the rows at the edges).
 */
function randomRange(r: ReturnType<typeof generator>) {
  const start = r.int(MINUTES - 1)
  const length = r.pick([1 + r.int(50), 60 * (1 + r.int(30)) + r.int(59), 1 + r.int(MINUTES - start - 1)])
  const end = Math.min(MINUTES, start + Math.max(1, length))
  const [a, b] = r.next() < 0.5 ? [0, 0] : [r.int(30_000), -r.int(30_000)]
  return { dateFrom: new Date(BASE + start * 60_000 + a).toISOString(), dateTo: new Date(BASE + end * 60_000 + b).toISOString() }
}

function expectSameAnswers(fromRollup: DashboardResult, fromRows: DashboardResult, context: string) {
  expect(
    fromRows.panels.every((p) => p.source === 'rows'),
    context,
  ).toBe(true)
  fromRollup.panels.forEach((a, i) => {
    const b = fromRows.panels[i]
    const where = `${context} panel ${a.id} (${a.source})`
    if (a.kind === 'latency' && b.kind === 'latency') {
      expect([a.count, a.errorRate, a.clientErrorRate], where).toEqual([b.count, b.errorRate, b.clientErrorRate])
      for (const [estimate, exact] of [
        [a.p50Ms, b.p50Ms],
        [a.p95Ms, b.p95Ms],
      ]) {
        if (exact === null) expect(estimate, where).toBeNull()
        else expect(Math.abs(estimate! - exact), `${where}: ${estimate} vs ${exact}`).toBeLessThanOrEqual(PERCENTILE_TOLERANCE * exact + 1.01)
      }
    } else {
      const { source: _a, sql: _sa, ...answerA } = a
      const { source: _b, sql: _sb, ...answerB } = b
      expect(answerA, where).toEqual(answerB)
    }
  })
}

beforeAll(async () => {
  testDatabase = await openTestDatabase('rollups', { fresh: true })
  database = testDatabase.database
  await database.migrate()
  const r = generator(SEED)
  // Random batch sizes; every fourth batch is written a second time, as a replay would.
  const rows = requestRows(r, 2500)
  for (let i = 0, batch = 0; i < rows.length; batch++) {
    const size = 1 + r.int(400)
    const chunk = rows.slice(i, i + size)
    expect(await writeRequestLog(database.db, chunk)).toBe(chunk.length)
    if (batch % 4 === 3) expect(await writeRequestLog(database.db, chunk)).toBe(0)
    i += size
  }
  const lines = sessionLines(r, 1200)
  for (let i = 0; i < lines.length; i += 300) await ingestBatch('sessions', lines.slice(i, i + 300).join('\n'), { db: database.db })
  await ingestBatch('sessions', lines.slice(0, 300).join('\n'), { db: database.db }) // a re-delivered batch
}, 120_000)

afterAll(async () => {
  await testDatabase?.close()
})

describe(`rollups answer as the rows do (${driverName}, seed ${SEED})`, { timeout: 180_000 }, () => {
  const check = async (dataset: DatasetId, filters: (r: ReturnType<typeof generator>) => string[], cases: number, seed: number) => {
    const r = generator(seed)
    let fromRollup = 0
    for (let c = 0; c < cases; c++) {
      const request = { dataset, ...randomRange(r), filter: r.pick(filters(r)) || undefined }
      const context = `seed ${SEED} case ${c} ${JSON.stringify(request)}`
      const [a, b] = [await runDashboard(request, { database }), await runDashboard(request, { database, rollups: false })]
      expectSameAnswers(a, b, context)
      const [countA, countB] = [await runQuery(request, { database }), await runQuery(request, { database, rollups: false })]
      expect([countA.count, countA.countExact], context).toEqual([countB.count, true])
      fromRollup += a.panels.filter((p) => p.source === 'rollup').length
      // Without a filter every panel reads the rollup, whatever the range's precision.
      if (!request.filter)
        expect(
          a.panels.map((p) => p.source),
          context,
        ).toEqual(a.panels.map(() => 'rollup'))
    }
    // Not vacuous: panels came from the rollup (a filter on an hour-only column, or on two
    // columns, reads the rows; the unfiltered cases are checked above).
    expect(fromRollup).toBeGreaterThan(cases / 4)
  }

  it('requests: counts, breakdowns, top lists, time series, error rates and percentiles', () => check('requests', REQUEST_FILTERS, CASES, SEED + 1))
  it('sessions: counts and byte sums over time', () => check('sessions', SESSION_FILTERS, CASES / 2, SEED + 2))
})

describe(`ranges given to the second (${driverName})`, { timeout: 60_000 }, () => {
  it("read the rollup for the interior and the rows only at the edges, with the rows' numbers", async () => {
    const request = {
      dataset: 'requests' as const,
      dateFrom: new Date(BASE + 3_600_000 * 5 + 17_345).toISOString(),
      dateTo: new Date(BASE + 2 * 86_400_000 + 1_800_000 - 3_210).toISOString(),
    }
    const [a, b] = [await runDashboard(request, { database }), await runDashboard(request, { database, rollups: false })]
    expectSameAnswers(a, b, JSON.stringify(request))
    for (const panel of a.panels) {
      expect(panel.source, panel.id).toBe('rollup')
      // Hour rows for the interior, the rows themselves for the partial minutes (or hours) at the edges.
      expect(panel.sql.text, panel.id).toContain('"request_log_rollup"')
      expect(panel.sql.text, panel.id).toMatch(/"grain" = \$\d+|"grain" = 'hour'/)
      expect(panel.sql.text, panel.id).toContain('FROM "request_log" WHERE "time" >=')
      expect(
        panel.sql.params.some((p) => p === 'hour' || p === 'minute'),
        panel.id,
      ).toBe(true)
    }
    const count = await runQuery(request, { database })
    expect([count.count, count.countExact]).toEqual([(await runQuery(request, { database, rollups: false })).count, true])
  })
})

describe(`rollup size (${driverName})`, { timeout: 120_000 }, () => {
  // One day at the density of 1,000,000 rows over 30 days (about 23 a minute): the minute grain
  // keeps the totals and low-cardinality columns only, so the rollup stays under half the rows.
  it('stays at most half the rows it summarises, and the seeding path writes what a rebuild does', async () => {
    const sized = await openTestDatabase('rollup_size', { fresh: true })
    try {
      await sized.database.migrate()
      const db = sized.database.db
      await seed(db, { rows: 33_334, datasets: ['requests'], days: 1 })
      const count = async (table: string) =>
        Number(((await db.execute(sql.raw(`SELECT count(*) AS n FROM ${table}`))) as unknown as { rows: Array<{ n: string }> }).rows[0].n)
      const snapshot = async () =>
        (await db.execute(sql.raw('SELECT * FROM request_log_rollup ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12'))) as unknown as { rows: unknown[] }
      const [rows, rollup] = [await count('request_log'), await count('request_log_rollup')]
      expect(rows).toBe(33_334)
      expect(rollup / rows, `${rollup} rollup rows for ${rows} rows`).toBeLessThanOrEqual(0.5)
      const seeded = (await snapshot()).rows
      await rebuildRollup(db, DATASETS.requests)
      expect((await snapshot()).rows).toEqual(seeded)
    } finally {
      await sized.close()
    }
  })
})

describe(`percentiles from the duration histogram (seed ${SEED})`, () => {
  /** The bucket of a duration, as drizzle's rollup SQL computes it (lib/datasets/storage/rollups.ts). */
  const bucketOf = (ms: number) => (ms < 1 ? 0 : Math.min(81, 1 + Math.floor((4 * Math.log(ms)) / Math.log(2))))
  const exact = (sorted: number[], p: number) => {
    const rank = p * (sorted.length - 1)
    const lo = Math.floor(rank)
    return sorted[lo] + (rank - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo])
  }

  it('stays within 2^(1/4) − 1 of percentile_cont, plus 1 ms, on random samples', () => {
    const r = generator(SEED + 3)
    for (let c = 0; c < 500; c++) {
      const values = Array.from({ length: 1 + r.int(300) }, () => (r.next() < 0.1 ? r.next() : Math.exp(r.next() * r.pick([3, 8, 13]))))
      const counts = new Map<number, number>()
      for (const v of values) counts.set(bucketOf(v), (counts.get(bucketOf(v)) ?? 0) + 1)
      const histogram = [...counts].map(([bucket, rows]) => ({ bucket, rows }))
      const sorted = [...values].sort((a, b) => a - b)
      for (const p of [0, 0.5, 0.95, 1]) {
        const truth = exact(sorted, p)
        expect(Math.abs(percentileFromHistogram(histogram, p)! - truth)).toBeLessThanOrEqual(PERCENTILE_TOLERANCE * truth + 1 + 1e-9)
      }
    }
    expect(percentileFromHistogram([], 0.5)).toBeNull()
  })
})

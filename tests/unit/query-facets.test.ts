import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setDatabase, type Database } from '@/lib/db/client'
import { insertWithRollup, ROLLUP_TOP_PER_HOUR } from '@/lib/datasets/storage/rollups'
import { store as sessions } from '@/lib/datasets/sessions/store'
import { DATASETS } from '@/lib/datasets/catalog'
import { FACET_SAMPLE_ROWS, facetColumns, runFacets } from '@/lib/query/facets'
import { runGroupBy } from '@/lib/query/group-by'
import { writeRequestLog } from '@/lib/request-log/store'
import { runQuery } from '@/lib/query/service'
import { addClause, searchClause, valueClause } from '@/lib/view/drilldown'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'
import { appError } from '@/test-support/app-error'

// Facets and group-by against a real database (PGlite by default; Postgres with
// QUERY_TEST_DATABASE_URL, as scripts/test.mjs runs it): every figure is checked against one
// computed here from the rows this test wrote.

let testDatabase: TestDatabase
let database: Database

const DAY = '2026-03-10'
const BIG_DAY = '2026-03-12'
const CAPPED_DAY = '2026-03-14'
const base = Date.parse(`${DAY}T00:00:00Z`)
type Row = {
  time: Date
  requestId: string
  method: string
  route: string
  status: number
  durationMs: number
  clientIp: string
  country: string | null
  userAgent: string
  apiKeyPresent: boolean
  rateLimited: boolean
  mcpTool: string | null
}
const ROWS: Row[] = Array.from({ length: 600 }, (_, i) => ({
  time: new Date(base + i * 2 * 60_000 + (i % 60) * 1000),
  requestId: `fc-${i}`,
  method: i % 3 === 0 ? 'POST' : 'GET',
  route: `/api/r${i % 7}`,
  status: i % 11 === 0 ? 503 : i % 5 === 0 ? 404 : 200,
  durationMs: ((i * 37) % 1000) + 0.5,
  clientIp: `198.51.${i % 3}.0`,
  country: (['DE', 'FR', null, 'US'] as const)[i % 4],
  userAgent: `ua-${i % 6}`,
  apiKeyPresent: i % 2 === 0,
  rateLimited: i % 13 === 0,
  mcpTool: i % 9 === 0 ? `tool-${i % 2}` : null,
}))
// A day with more matching rows than the facet sample holds.
const BIG: Row[] = Array.from({ length: FACET_SAMPLE_ROWS + 500 }, (_, i) => ({
  ...ROWS[i % ROWS.length],
  time: new Date(Date.parse(`${BIG_DAY}T00:00:00Z`) + i * 8000),
  requestId: `big-${i}`,
  route: i < 500 ? '/api/oldest' : `/api/b${i % 4}`,
}))
// One hour with more distinct routes than the rollup keeps per hour (ROLLUP_TOP_PER_HOUR), in one
// batch: the route list of that hour leaves values out, so routes are counted from the rows.
const CAPPED: Row[] = Array.from({ length: ROLLUP_TOP_PER_HOUR + 10 }, (_, i) => ({
  ...ROWS[0],
  time: new Date(Date.parse(`${CAPPED_DAY}T10:00:00Z`) + i * 30_000),
  requestId: `capped-${i}`,
  route: `/api/capped/${i}`,
  status: i % 4 === 0 ? 503 : 200,
}))
const COLUMN: Record<string, keyof Row> = {
  route: 'route',
  status: 'status',
  client_ip: 'clientIp',
  country: 'country',
  user_agent: 'userAgent',
  mcp_tool: 'mcpTool',
  rate_limited: 'rateLimited',
  api_key_present: 'apiKeyPresent',
  method: 'method',
}

const SESSIONS = Array.from({ length: 120 }, (_, i) => ({
  sessionStartTime: new Date(base + i * 5 * 60_000),
  protocol: i % 3 === 0 ? 'udp' : 'tcp',
  clientTlsVersion: i % 4 === 0 ? 'TLSv1.2' : 'TLSv1.3',
  email: `u${i % 5}@example.com`,
  bytesSent: 1000 + i * 17,
  bytesReceived: 50_000 + i * 313,
  connectionReuse: i % 2 === 0,
  rowHash: `s-${i}`,
}))

function counts<T>(rows: T[], key: (r: T) => unknown): Map<string, number> {
  const m = new Map<string, number>()
  for (const r of rows) m.set(JSON.stringify(key(r) ?? null), (m.get(JSON.stringify(key(r) ?? null)) ?? 0) + 1)
  return m
}

/** percentile_cont as Postgres computes it. */
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b)
  const rank = p * (s.length - 1)
  const lo = Math.floor(rank)
  return lo === rank ? s[lo] : s[lo] + (rank - lo) * (s[lo + 1] - s[lo])
}

/** Checks one facet against the rows it counts: totals, distinct values, and a true top list. */
function expectFacet(
  facet: { column: string; total: number; distinct: number; values: Array<{ value: unknown; count: number; share: number }> },
  rows: Row[],
  n = 5,
) {
  const expected = counts(rows, (r) => r[COLUMN[facet.column]])
  expect(facet.total, facet.column).toBe(rows.length)
  expect(facet.distinct, facet.column).toBe(expected.size)
  expect(facet.values.length, facet.column).toBe(Math.min(n, expected.size))
  for (const v of facet.values) {
    expect(v.count, `${facet.column}=${String(v.value)}`).toBe(expected.get(JSON.stringify(v.value)))
    expect(v.share).toBeCloseTo(v.count / rows.length, 12)
  }
  // No value left out counts more than the smallest one shown.
  const shown = new Set(facet.values.map((v) => JSON.stringify(v.value)))
  const smallest = Math.min(...facet.values.map((v) => v.count))
  for (const [value, count] of expected) if (!shown.has(value)) expect(count, `${facet.column}=${value} left out`).toBeLessThanOrEqual(smallest)
}

beforeAll(async () => {
  testDatabase = await openTestDatabase('facets')
  database = testDatabase.database
  await database.migrate()
  await database.db.execute(sql`TRUNCATE request_log, request_log_rollup, gateway_sessions, gateway_sessions_rollup RESTART IDENTITY`)
  await writeRequestLog(database.db, [...ROWS, ...BIG])
  await writeRequestLog(database.db, CAPPED)
  await insertWithRollup(database.db, sessions, SESSIONS)
  setDatabase(database)
}, 120_000)

afterAll(async () => {
  setDatabase(undefined)
  await testDatabase?.close()
})

describe(`facets (${driverName})`, () => {
  it('reads every column from the rollup without a filter, the hour-only ones too when their capped lists left nothing out, with exact counts and shares', async () => {
    const r = await runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY })
    expect(r.facets.map((f) => f.column)).toEqual(facetColumns(DATASETS.requests))
    expect(r.facets.every((f) => f.source === 'rollup')).toBe(true)
    expect(r.sample).toBeNull()
    expect(r.statements.map((s) => s.label)).toEqual(facetColumns(DATASETS.requests).map((c) => `${c}, from the rollup`))
    for (const f of r.facets) expectFacet(f, ROWS)
  })

  it('counts an hour-only column from the rows where its capped per-hour list left values out, and the rest from the rollup', async () => {
    expect(DATASETS.requests.rollup.hourOnly).toContain('route')
    const r = await runFacets({ dataset: 'requests', dateFrom: CAPPED_DAY, dateTo: CAPPED_DAY, values: 20 })
    expect(r.facets.filter((f) => f.source === 'sample').map((f) => f.column)).toEqual(['route'])
    expect(r.sample).toEqual({ limit: FACET_SAMPLE_ROWS, rows: CAPPED.length, complete: true, matching: CAPPED.length })
    for (const f of r.facets) expectFacet(f, CAPPED, 20)
    const byRoute = await runGroupBy({ dataset: 'requests', dateFrom: CAPPED_DAY, dateTo: CAPPED_DAY, by: ['route'], limit: 200 })
    expect(byRoute.source).toBe('rows')
    expect(byRoute.groupCount).toBe(CAPPED.length)
    expect(byRoute.groups.every((g) => g.count === 1)).toBe(true)
    expect((await runGroupBy({ dataset: 'requests', dateFrom: CAPPED_DAY, dateTo: CAPPED_DAY, by: ['status'] })).source).toBe('rollup')
  })

  it('reads the filtered column from the rollup and the others from a sample that is every row when the range holds fewer than the limit', async () => {
    const r = await runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'status >= 500' })
    const matching = ROWS.filter((x) => x.status >= 500)
    expect(r.facets.find((f) => f.column === 'status')?.source).toBe('rollup')
    expect(r.facets.filter((f) => f.column !== 'status').every((f) => f.source === 'sample')).toBe(true)
    expect(r.sample).toEqual({ limit: FACET_SAMPLE_ROWS, rows: matching.length, complete: true, matching: matching.length })
    for (const f of r.facets) expectFacet(f, matching)
  })

  it('counts within the newest rows of the range when more rows match than the sample holds', async () => {
    const r = await runFacets({ dataset: 'requests', dateFrom: BIG_DAY, dateTo: BIG_DAY, filter: 'duration_ms >= 0', values: 20 })
    const matching = BIG
    expect(matching.length).toBeGreaterThan(FACET_SAMPLE_ROWS)
    const newest = [...matching].sort((a, b) => b.time.getTime() - a.time.getTime()).slice(0, FACET_SAMPLE_ROWS)
    expect(r.sample).toEqual({ limit: FACET_SAMPLE_ROWS, rows: FACET_SAMPLE_ROWS, complete: false, matching: BIG.length })
    for (const f of r.facets) expectFacet(f, newest, 20)
    expect(r.facets.find((f) => f.column === 'route')!.values.some((v) => v.value === '/api/oldest')).toBe(false)
  })

  it('counts exactly over every matching row when asked, the same figures as count(*) in SQL', async () => {
    const r = await runFacets({ dataset: 'requests', dateFrom: BIG_DAY, dateTo: BIG_DAY, filter: 'duration_ms >= 0', values: 20, exact: true })
    expect(r.sample).toEqual({ limit: null, rows: BIG.length, complete: true, matching: BIG.length })
    for (const f of r.facets) expectFacet(f, BIG, 20)
    const counted = await database.db.execute(
      sql`SELECT route, count(*)::int AS n FROM request_log WHERE time >= ${`${BIG_DAY}T00:00:00Z`} AND time < ${`${BIG_DAY}T23:59:59.999Z`} AND duration_ms >= 0 GROUP BY route`,
    )
    const route = r.facets.find((f) => f.column === 'route')!
    expect(route.source).toBe('sample')
    // The driver answers with an array of rows or with `{ rows }`.
    const rows = (Array.isArray(counted) ? counted : (counted as { rows: unknown[] }).rows) as Array<{ route: string; n: number }>
    expect(Object.fromEntries(route.values.map((v) => [v.value, v.count]))).toEqual(Object.fromEntries(rows.map((row) => [row.route, Number(row.n)])))
    expect(route.values.find((v) => v.value === '/api/oldest')?.count).toBe(500)
  })

  it('gives the same figures from the rows as from the rollup', async () => {
    const [a, b] = await Promise.all([
      runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY }),
      runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY }, { rollups: false }),
    ])
    expect(b.facets.every((f) => f.source === 'sample')).toBe(true)
    expect(b.facets.map((f) => [f.column, f.total, f.distinct, f.values])).toEqual(a.facets.map((f) => [f.column, f.total, f.distinct, f.values]))
  })

  it('= and ≠ on a value make a filter the checker accepts, selecting exactly the counted rows', async () => {
    const r = await runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY })
    for (const column of ['route', 'status', 'country', 'mcp_tool', 'rate_limited', 'client_ip']) {
      const facet = r.facets.find((f) => f.column === column)!
      const def = DATASETS.requests.columns.find((c) => c.name === column)!
      for (const v of facet.values.slice(0, 2)) {
        const eq = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: addClause('', valueClause(def, v.value, '=')), limit: 1 })
        const ne = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: addClause('', valueClause(def, v.value, '!=')), limit: 1 })
        expect(eq.count, `${column} = ${String(v.value)}`).toBe(v.count)
        // `!=` on NULL becomes IS NOT NULL; on a value it leaves NULLs out, as SQL does.
        const nulls = ROWS.filter((x) => x[COLUMN[column]] === null).length
        expect(ne.count, `${column} != ${String(v.value)}`).toBe(ROWS.length - v.count - (v.value === null ? 0 : nulls))
      }
    }
  })

  it('refuses what a typed filter would refuse', async () => {
    expect((await appError(runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'pg_sleep(1) IS NULL' }))).message).toMatch(/function pg_sleep/)
    expect((await appError(runFacets({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, values: 0 }))).message).toMatch(/values/)
  })
})

describe(`group by (${driverName})`, () => {
  const routeGroups = () => {
    const m = new Map<string, Row[]>()
    for (const r of ROWS) m.set(r.route, [...(m.get(r.route) ?? []), r])
    return m
  }

  it('groups by one rollup column from the rollup: count, errors and error rate, percentiles omitted', async () => {
    const r = await runGroupBy({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['status'] })
    expect(r.source).toBe('rollup')
    expect(r.omitted).toEqual(['p50', 'p95'])
    const expected = new Map<string, Row[]>()
    for (const row of ROWS) expected.set(String(row.status), [...(expected.get(String(row.status)) ?? []), row])
    expect(r.groupCount).toBe(expected.size)
    expect(r.total).toBe(ROWS.length)
    expect(r.groups.map((g) => g.count)).toEqual([...r.groups.map((g) => g.count)].sort((a, b) => b - a))
    for (const g of r.groups) {
      const rows = expected.get(String(g.values[0]))!
      const errors = rows.filter((x) => x.status >= 500).length
      expect(g.count).toBe(rows.length)
      expect(g.errors).toBe(errors)
      expect(g.errorRate).toBeCloseTo(errors / rows.length, 12)
      expect(g.p50).toBeNull()
    }
    expect(r.sql.text).toContain('request_log_rollup')
  })

  it('reads the rows for percentiles, and they match percentile_cont computed here', async () => {
    const r = await runGroupBy({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['route'], rows: true, sort: 'p95', order: 'asc' })
    expect(r.source).toBe('rows')
    expect(r.omitted).toEqual([])
    const expected = routeGroups()
    expect(r.groups.map((g) => g.p95)).toEqual([...r.groups.map((g) => g.p95)].sort((a, b) => a! - b!))
    for (const g of r.groups) {
      const rows = expected.get(g.values[0] as string)!
      expect(g.count).toBe(rows.length)
      expect(g.p50).toBeCloseTo(
        percentile(
          rows.map((x) => x.durationMs),
          0.5,
        ),
        2,
      )
      expect(g.p95).toBeCloseTo(
        percentile(
          rows.map((x) => x.durationMs),
          0.95,
        ),
        2,
      )
    }
    // A percentile sort alone sends it to the rows too.
    expect((await runGroupBy({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['route'], sort: 'p50' })).source).toBe('rows')
  })

  it('groups by two columns under a filter, sorted by error rate, limited, with the group count before the limit', async () => {
    const filter = "method = 'GET'"
    const r = await runGroupBy({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['route', 'status'], filter, sort: 'error_rate', limit: 5 })
    expect(r.source).toBe('rows')
    const matching = ROWS.filter((x) => x.method === 'GET')
    const expected = counts(matching, (x) => [x.route, x.status])
    expect(r.groupCount).toBe(expected.size)
    expect(r.total).toBe(matching.length)
    expect(r.groups).toHaveLength(5)
    for (const g of r.groups) {
      expect(g.count).toBe(expected.get(JSON.stringify(g.values)))
      expect(g.errorRate).toBe(g.values[1] === 503 ? 1 : 0)
    }
    expect(r.groups.map((g) => g.errorRate)).toEqual([...r.groups.map((g) => g.errorRate)].sort((a, b) => b! - a!))
    // Each group's link filter selects exactly its rows.
    const def = (n: string) => DATASETS.requests.columns.find((c) => c.name === n)!
    const g = r.groups[0]
    const linked = addClause(addClause(filter, valueClause(def('route'), g.values[0], '=')), valueClause(def('status'), g.values[1], '='))
    expect((await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: linked, limit: 1 })).count).toBe(g.count)
  })

  it('sums bytes per group for sessions, the same from the rollup and from the rows', async () => {
    const [a, b] = await Promise.all([
      runGroupBy({ dataset: 'sessions', dateFrom: DAY, dateTo: DAY, by: ['protocol'], sort: 'bytes_received' }),
      runGroupBy({ dataset: 'sessions', dateFrom: DAY, dateTo: DAY, by: ['protocol'], sort: 'bytes_received', rows: true }),
    ])
    expect([a.source, b.source]).toEqual(['rollup', 'rows'])
    const measures = (groups: typeof a.groups) => groups.map(({ firstSeen: _f, lastSeen: _l, ...g }) => g)
    expect(measures(a.groups)).toEqual(measures(b.groups))
    for (const g of a.groups) {
      const rows = SESSIONS.filter((s) => s.protocol === g.values[0])
      expect(g.count).toBe(rows.length)
      expect(g.sums).toEqual({ bytes_sent: rows.reduce((t, s) => t + s.bytesSent, 0), bytes_received: rows.reduce((t, s) => t + s.bytesReceived, 0) })
      expect(g.errorRate).toBeNull()
    }
    const two = await runGroupBy({ dataset: 'sessions', dateFrom: DAY, dateTo: DAY, by: ['protocol', 'client_tls_version'], sort: 'value', order: 'asc' })
    expect(two.groups.map((g) => g.values)).toEqual([
      ['tcp', 'TLSv1.2'],
      ['tcp', 'TLSv1.3'],
      ['udp', 'TLSv1.2'],
      ['udp', 'TLSv1.3'],
    ])
    for (const g of two.groups) expect(g.count).toBe(SESSIONS.filter((s) => s.protocol === g.values[0] && s.clientTlsVersion === g.values[1]).length)
  })

  it('says when each group was first and last seen: exactly from the rows, within the bucket from the rollup, and sorts by it', async () => {
    const expected = routeGroups()
    const first = (rows: Row[]) => Math.min(...rows.map((x) => x.time.getTime()))
    const last = (rows: Row[]) => Math.max(...rows.map((x) => x.time.getTime()))
    const exact = await runGroupBy({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['route'], rows: true, sort: 'first_seen', order: 'asc' })
    expect(exact.source).toBe('rows')
    for (const g of exact.groups) {
      const rows = expected.get(g.values[0] as string)!
      expect(g.firstSeen).toEqual({ at: new Date(first(rows)).toISOString(), within: 'exact' })
      expect(g.lastSeen).toEqual({ at: new Date(last(rows)).toISOString(), within: 'exact' })
    }
    expect(exact.groups.map((g) => g.firstSeen!.at)).toEqual(exact.groups.map((g) => g.firstSeen!.at).sort())

    // Whole-day range: hour rows of the rollup; the true time lies inside the bucket the answer names.
    const byStatus = await runGroupBy({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['status'], sort: 'last_seen' })
    expect(byStatus.source).toBe('rollup')
    const grainMs = { minute: 60_000, hour: 3_600_000 } as const
    for (const g of byStatus.groups) {
      const rows = ROWS.filter((x) => x.status === g.values[0])
      for (const [seen, truth] of [
        [g.firstSeen!, first(rows)],
        [g.lastSeen!, last(rows)],
      ] as const) {
        expect(seen.within).not.toBe('exact')
        const at = Date.parse(seen.at)
        expect(truth).toBeGreaterThanOrEqual(at)
        expect(truth).toBeLessThan(at + grainMs[seen.within as 'minute' | 'hour'])
      }
    }
    expect(byStatus.groups.map((g) => g.lastSeen!.at)).toEqual(
      byStatus.groups
        .map((g) => g.lastSeen!.at)
        .sort()
        .reverse(),
    )
  })

  it('free-text search counts exactly the rows with the text in any text column, in any case', async () => {
    for (const text of ['A/R3', 'ua-5', 'fc-59', '%']) {
      const filter = searchClause(DATASETS.requests.columns, text)!
      const expected = ROWS.filter((x) =>
        [x.requestId, x.method, x.route, x.country, x.userAgent, x.mcpTool].some((v) => v?.toLowerCase().includes(text.toLowerCase())),
      )
      expect((await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter, limit: 1 })).count, text).toBe(expected.length)
    }
  })

  /** Counts per (period start, value) of ROWS, periods cut at whole `offsetMinutes` from UTC (a fixed-offset zone). */
  const periodCounts = (column: keyof Row, every: 'hour' | 'day', offsetMinutes = 0) => {
    const size = every === 'hour' ? 3_600_000 : 86_400_000
    const shift = offsetMinutes * 60_000
    return counts(ROWS, (r) => [new Date(Math.floor((r.time.getTime() + shift) / size) * size - shift).toISOString(), r[column]])
  }
  const asMap = (groups: Array<{ values: unknown[]; count: number }>) => new Map(groups.map((g) => [JSON.stringify(g.values), g.count]))

  it('splits groups per hour, the same from the rollup and from the rows, periods ascending and the sort within each', async () => {
    const expected = periodCounts('status', 'hour')
    const req = { dataset: 'requests' as const, dateFrom: DAY, dateTo: DAY, by: ['status'], every: 'hour' as const, limit: 200 }
    const [rollup, rows] = await Promise.all([runGroupBy(req), runGroupBy({ ...req, rows: true })])
    expect(rollup.source).toBe('rollup')
    expect(rows.source).toBe('rows')
    for (const r of [rollup, rows]) {
      expect(r.every).toBe('hour')
      expect(r.groupCount).toBe(expected.size)
      expect(r.total).toBe(ROWS.length)
      expect(asMap(r.groups)).toEqual(expected)
      // Periods ascending; within one, count descending then value.
      for (let i = 1; i < r.groups.length; i++) {
        const [a, b] = [r.groups[i - 1], r.groups[i]]
        expect(String(a.values[0]) <= String(b.values[0])).toBe(true)
        if (a.values[0] === b.values[0]) expect(a.count).toBeGreaterThanOrEqual(b.count)
      }
      expect(r.sql.text).toContain('date_trunc')
    }
    // The first/last seen of each (hour, status) lie within its hour.
    for (const g of rows.groups) {
      const start = Date.parse(String(g.values[0]))
      expect(Date.parse(g.firstSeen!.at)).toBeGreaterThanOrEqual(start)
      expect(Date.parse(g.lastSeen!.at)).toBeLessThan(start + 3_600_000)
    }
    // The limit applies to the (hour, group) rows, the count before it stays.
    const limited = await runGroupBy({ ...req, limit: 7 })
    expect(limited.groups).toHaveLength(7)
    expect(limited.groupCount).toBe(expected.size)
    expect(limited.groups).toEqual(rollup.groups.slice(0, 7))
  })

  it('splits groups per hour from the rows for two columns, and a group link filter plus its hour selects exactly its rows', async () => {
    const r = await runGroupBy({
      dataset: 'requests',
      dateFrom: DAY,
      dateTo: DAY,
      by: ['route', 'method'],
      every: 'hour',
      sort: 'value',
      order: 'asc',
      limit: 200,
    })
    expect(r.source).toBe('rows')
    const hour = 3_600_000
    const expected = counts(ROWS, (x) => [new Date(Math.floor(x.time.getTime() / hour) * hour).toISOString(), x.route, x.method])
    expect(r.groupCount).toBe(Math.min(expected.size))
    expect(r.groups).toHaveLength(Math.min(200, expected.size))
    for (const g of r.groups) expect(g.count, JSON.stringify(g.values)).toBe(expected.get(JSON.stringify(g.values)))
    const g = r.groups[3]
    const from = new Date(Date.parse(String(g.values[0])))
    const to = new Date(from.getTime() + hour)
    const filter = addClause(
      valueClause(
        DATASETS.requests.columns.find((c) => c.name === 'route')!,
        g.values[1],
        '=',
      ),
      valueClause(
        DATASETS.requests.columns.find((c) => c.name === 'method')!,
        g.values[2],
        '=',
      ),
    )
    const q = await runQuery({ dataset: 'requests', dateFrom: from.toISOString(), dateTo: to.toISOString(), filter, limit: 1 })
    expect(q.count).toBe(g.count)
  })

  it('cuts day periods in the request time zone: from the rollup in a whole-hour zone, from the rows in a half-hour one', async () => {
    const req = { dataset: 'requests' as const, dateFrom: '2026-03-09', dateTo: '2026-03-11', by: ['status'], every: 'day' as const, limit: 200 }
    const tokyo = await runGroupBy({ ...req, timeZone: 'Asia/Tokyo' })
    expect(tokyo.source).toBe('rollup')
    expect(tokyo.timeZone).toBe('Asia/Tokyo')
    const tokyoRows = await runGroupBy({ ...req, timeZone: 'Asia/Tokyo', rows: true })
    const kolkata = await runGroupBy({ ...req, timeZone: 'Asia/Kolkata' })
    expect(kolkata.source).toBe('rows')
    // Only ROWS lie in that range before BIG_DAY; both zones cut 2026-03-10 into two local days.
    const inRange = (r: typeof tokyo) => ({ ...r, groups: r.groups.filter((g) => String(g.values[0]) < '2026-03-11T12:00:00.000Z') })
    const expectedTokyo = periodCounts('status', 'day', 9 * 60)
    const expectedKolkata = periodCounts('status', 'day', 5 * 60 + 30)
    expect(new Set([...expectedTokyo.keys()].map((k) => JSON.parse(k)[0])).size).toBe(2)
    expect(asMap(inRange(tokyo).groups)).toEqual(expectedTokyo)
    expect(asMap(inRange(tokyoRows).groups)).toEqual(expectedTokyo)
    expect(asMap(inRange(kolkata).groups)).toEqual(expectedKolkata)
    expect([...expectedTokyo.keys()].map((k) => JSON.parse(k)[0])).toContain('2026-03-09T15:00:00.000Z')
    expect([...expectedKolkata.keys()].map((k) => JSON.parse(k)[0])).toContain('2026-03-10T18:30:00.000Z')
  })

  it('refuses a period or time zone it does not know', async () => {
    const req = { dataset: 'requests' as const, dateFrom: DAY, dateTo: DAY, by: ['route'] }
    expect((await appError(runGroupBy({ ...req, every: 'week' as 'day' }))).message).toMatch(/every/)
    expect((await appError(runGroupBy({ ...req, every: 'day', timeZone: 'Mars/Olympus' }))).message).toMatch(/timeZone/)
  })

  it('refuses columns and sorts the dataset does not have', async () => {
    const req = { dataset: 'requests' as const, dateFrom: DAY, dateTo: DAY }
    expect((await appError(runGroupBy({ ...req, by: ['nope'] }))).message).toMatch(/not a column requests can be grouped by/)
    expect((await appError(runGroupBy({ ...req, by: ['time'] }))).message).toMatch(/not a column/)
    expect((await appError(runGroupBy({ ...req, by: ['route', 'route'] }))).message).toMatch(/same column twice/)
    expect((await appError(runGroupBy({ ...req, by: ['route', 'status', 'method'] }))).message).toMatch(/by/)
    expect((await appError(runGroupBy({ ...req, by: [] }))).message).toMatch(/by/)
    expect((await appError(runGroupBy({ ...req, by: ['route'], sort: 'bytes_sent' }))).message).toMatch(/not a measure/)
    expect((await appError(runGroupBy({ ...req, by: ['route'], limit: 201 }))).message).toMatch(/limit/)
    expect((await appError(runGroupBy({ dataset: 'network', dateFrom: DAY, dateTo: DAY, by: ['action'], sort: 'p95' }))).message).toMatch(/not a measure/)
  })
})

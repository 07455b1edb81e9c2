import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATASETS } from '@/lib/datasets/catalog'
import { setDatabase, type Database } from '@/lib/db/client'
import { ROLLUP_TOP_PER_HOUR } from '@/lib/datasets/storage/rollups'
import { AppError } from '@/lib/errors'
import { runCompare } from '@/lib/query/compare'
import { writeRequestLog } from '@/lib/request-log/store'
import { runSplit } from '@/lib/query/split'
import { baselineRange } from '@/lib/view/compare'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Compare with an earlier window and split by a column, on PGlite and on Postgres (scripts/test.mjs
// runs this suite on each driver). Every figure is recomputed here from the rows the test wrote,
// and the rollup and the rows must both give it.

let testDatabase: TestDatabase
let database: Database

const DAY = '2026-01-10'
const BEFORE = '2026-01-09'
const at = (day: string, ms: number) => new Date(Date.parse(`${day}T00:00:00Z`) + ms)
const row = (time: Date, i: number, status: number, route: string) => ({
  time,
  requestId: `cmp-${time.toISOString()}-${i}`,
  method: 'GET',
  route,
  status,
  durationMs: 5,
  clientIp: null,
})
// The day before: 200 rows 7 minutes apart; mostly 200s, 404 every 5th, 500 every 10th, four routes.
const BASELINE = Array.from({ length: 200 }, (_, i) => row(at(BEFORE, i * 7 * 60_000), i, i % 10 === 0 ? 500 : i % 5 === 0 ? 404 : 200, `/api/r${i % 4}`))
// The day itself: 300 rows 4 minutes 30 s apart (off the minute); 500 every 4th, 302 every 9th, five routes.
const CURRENT = Array.from({ length: 300 }, (_, i) => row(at(DAY, i * 270_000 + 30_000), i, i % 4 === 0 ? 500 : i % 9 === 0 ? 302 : 200, `/api/r${i % 5}`))
const ALL = [...BASELINE, ...CURRENT]
// A later day with more distinct routes in one hour than the rollup keeps per hour (written as one batch).
const CAPPED_DAY = '2026-01-20'
const CAPPED = Array.from({ length: ROLLUP_TOP_PER_HOUR + 10 }, (_, i) =>
  row(at(CAPPED_DAY, 10 * 3_600_000 + i * 30_000), i, i % 3 === 0 ? 500 : 200, `/api/capped/${i}`),
)

type Row = (typeof ALL)[number]
const within = (rows: Row[], from: string, to: string) => rows.filter((r) => r.time.getTime() >= Date.parse(from) && r.time.getTime() < Date.parse(to))
const statusClass = (s: number) => `${Math.floor(s / 100)}xx`

/** Expected split: per bucket, per value (top `top` by total, ties by value), the rest as "other". */
function expectedSplit(rows: Row[], from: string, to: string, bucketS: number, value: (r: Row) => string, top: number) {
  const totals = new Map<string, number>()
  for (const r of rows) totals.set(value(r), (totals.get(value(r)) ?? 0) + 1)
  const kept = [...totals.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([v]) => v)
  const step = bucketS * 1000
  const first = Math.floor(Date.parse(from) / step) * step
  const n = Math.ceil((Date.parse(to) - first) / step)
  const series = new Map<string, number[]>()
  for (const r of rows) {
    const key = kept.includes(value(r)) ? value(r) : 'other'
    const values = series.get(key) ?? Array(n).fill(0)
    values[Math.floor((r.time.getTime() - first) / step)] += 1
    series.set(key, values)
  }
  return Object.fromEntries(series)
}

/** Expected share moves of one column between two sets of rows, largest first (equal moves by value; the database computes them exactly). */
function expectedChanges(current: Row[], baseline: Row[], value: (r: Row) => string) {
  const count = (rows: Row[]) => rows.reduce((m, r) => m.set(value(r), (m.get(value(r)) ?? 0) + 1), new Map<string, number>())
  const [c, b] = [count(current), count(baseline)]
  return [...new Set([...c.keys(), ...b.keys()])]
    .map((v) => ({ value: v, current: c.get(v) ?? 0, baseline: b.get(v) ?? 0, delta: (c.get(v) ?? 0) / current.length - (b.get(v) ?? 0) / baseline.length }))
    .sort((x, y) => (Math.abs(Math.abs(y.delta) - Math.abs(x.delta)) > 1e-12 ? Math.abs(y.delta) - Math.abs(x.delta) : x.value < y.value ? -1 : 1))
}

beforeAll(async () => {
  testDatabase = await openTestDatabase('compare')
  database = testDatabase.database
  await database.migrate()
  await database.db.execute(sql`TRUNCATE request_log, request_log_rollup RESTART IDENTITY`)
  await writeRequestLog(database.db, ALL)
  await writeRequestLog(database.db, CAPPED)
  setDatabase(database)
}, 60_000)

afterAll(async () => {
  setDatabase(undefined)
  await testDatabase?.close()
})

describe(`runSplit (${driverName})`, () => {
  const dayFrom = `${DAY}T00:00:00.000Z`
  const dayTo = '2026-01-11T00:00:00.000Z'

  for (const rollups of [true, false]) {
    it(`stacks a day by status class, top 2 and other, from the ${rollups ? 'rollup' : 'rows'}`, async () => {
      const r = await runSplit({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, split: 'status_class', top: 2 }, { rollups })
      expect(r.source).toBe(rollups ? 'rollup' : 'rows')
      const expected = expectedSplit(within(ALL, dayFrom, dayTo), dayFrom, dayTo, r.bucketSeconds, (x) => statusClass(x.status), 2)
      expect(Object.fromEntries(r.series.map((s) => [s.key, s.values]))).toEqual(expected)
      expect(r.series.map((s) => s.key)).toEqual(['2xx', '5xx', 'other'])
      expect(r.total).toBe(CURRENT.length)
      expect(r.buckets).toHaveLength(r.series[0].values.length)
    })
  }

  it('stacks by route over two days with a filter on status (rollup of route cannot answer: rows)', async () => {
    const from = `${BEFORE}T00:00:00.000Z`
    const r = await runSplit({ dataset: 'requests', dateFrom: from, dateTo: dayTo, filter: 'status >= 400', split: 'route', top: 3 })
    expect(r.source).toBe('rows')
    const rows = within(ALL, from, dayTo).filter((x) => x.status >= 400)
    expect(Object.fromEntries(r.series.map((s) => [s.key, s.values]))).toEqual(expectedSplit(rows, from, dayTo, r.bucketSeconds, (x) => x.route, 3))
    expect(r.total).toBe(rows.length)
  })

  it('reads the rollup of the split column under a filter on the same column', async () => {
    const r = await runSplit({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'status <> 200', split: 'status' })
    expect(r.source).toBe('rollup')
    const rows = within(ALL, dayFrom, dayTo).filter((x) => x.status !== 200)
    expect(Object.fromEntries(r.series.map((s) => [s.key, s.values]))).toEqual(expectedSplit(rows, dayFrom, dayTo, r.bucketSeconds, (x) => String(x.status), 5))
  })

  it('refuses a column that is not a split column', async () => {
    const error = await runSplit({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, split: 'duration_ms' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).message).toMatch(/status_class/)
  })
})

describe(`runCompare (${driverName})`, () => {
  for (const rollups of [true, false]) {
    it(`compares a day with the day before: histograms and share moves, from the ${rollups ? 'rollup' : 'rows'}`, async () => {
      const r = await runCompare({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, compare: 'day', columns: ['status', 'route'], top: 3 }, { rollups })
      expect(r.baselineRange).toEqual({ from: `${BEFORE}T00:00:00.000Z`, to: `${DAY}T00:00:00.000Z` })
      expect(r.histogram.total).toBe(CURRENT.length)
      expect(r.baseline.total).toBe(BASELINE.length)
      // Buckets line up: the baseline's bucket i is one day before the range's.
      expect(r.baseline.buckets.map((b: string) => Date.parse(b) + r.shiftMs)).toEqual(r.histogram.buckets.map((b: string) => Date.parse(b)))
      const byColumn = Object.fromEntries(r.changes.map((c) => [c.column, c]))
      for (const [column, value] of [
        ['status', (x: Row) => String(x.status)],
        ['route', (x: Row) => x.route],
      ] as const) {
        const got = byColumn[column]
        // route is kept per hour only, capped; its lists left nothing out here, so the rollup is exact.
        expect(DATASETS.requests.rollup.hourOnly).toContain('route')
        expect(got.source).toBe(rollups ? 'rollup' : 'rows')
        expect(got.sampled).toBe(false)
        expect([got.currentTotal, got.baselineTotal]).toEqual([CURRENT.length, BASELINE.length])
        const want = expectedChanges(CURRENT, BASELINE, value).slice(0, 3)
        expect(got.values.map((v) => ({ value: v.value, current: v.current, baseline: v.baseline }))).toEqual(
          want.map(({ value: v, current, baseline }) => ({ value: v, current, baseline })),
        )
        got.values.forEach((v, i) => expect(v.delta).toBeCloseTo(want[i].delta, 10))
      }
    })
  }

  it('compares six hours with the six before, filtered on a non-rollup pair (rows), and samples when asked', async () => {
    const [from, to] = [`${DAY}T06:00:00Z`, `${DAY}T12:00:00Z`]
    const base = baselineRange('previous', from, to)
    expect(base).toEqual({ dateFrom: `${DAY}T00:00:00.000Z`, dateTo: `${DAY}T06:00:00.000Z`, shiftMs: 6 * 3_600_000 })
    const r = await runCompare({ dataset: 'requests', dateFrom: from, dateTo: to, compare: 'previous', filter: "route <> '/api/r0'", columns: ['status'] })
    const keep = (x: Row) => x.route !== '/api/r0'
    const current = within(ALL, from, to).filter(keep)
    const baseline = within(ALL, base.dateFrom, base.dateTo).filter(keep)
    const status = r.changes[0]
    expect(status.source).toBe('rows')
    expect(r.histogram.total).toBe(current.length)
    expect(r.baseline.total).toBe(baseline.length)
    expect(status.values.map((v) => [v.value, v.current, v.baseline])).toEqual(
      expectedChanges(current, baseline, (x) => String(x.status))
        .slice(0, 5)
        .map((v) => [v.value, v.current, v.baseline]),
    )
    // Bounded: the newest 10 rows of each window.
    const sampled = await runCompare(
      { dataset: 'requests', dateFrom: from, dateTo: to, compare: 'previous', filter: "route <> '/api/r0'", columns: ['status'] },
      { sampleRows: 10 },
    )
    expect(sampled.changes[0].sampled).toBe(true)
    expect([sampled.changes[0].currentTotal, sampled.changes[0].baselineTotal]).toEqual([10, 10])
    const newest = (rows: Row[]) => [...rows].sort((a, b) => b.time.getTime() - a.time.getTime()).slice(0, 10)
    expect(sampled.changes[0].values.map((v) => [v.value, v.current, v.baseline])).toEqual(
      expectedChanges(newest(current), newest(baseline), (x) => String(x.status))
        .slice(0, 5)
        .map((v) => [v.value, v.current, v.baseline]),
    )
  })

  it('reads an hour-only column from the rows when its capped lists left values out in either window', async () => {
    const r = await runCompare({ dataset: 'requests', dateFrom: CAPPED_DAY, dateTo: CAPPED_DAY, compare: 'day', columns: ['route', 'status'], top: 3 })
    const byColumn = Object.fromEntries(r.changes.map((c) => [c.column, c]))
    expect(byColumn.route.source).toBe('rows')
    expect(byColumn.status.source).toBe('rollup')
    expect([byColumn.route.currentTotal, byColumn.route.baselineTotal]).toEqual([CAPPED.length, 0])
    // Nothing the day before: each value's move is its share now, largest first.
    const errors = CAPPED.filter((x) => x.status === 500).length
    expect(byColumn.status.values.map((v) => [v.value, v.current, v.baseline])).toEqual([
      ['200', CAPPED.length - errors, 0],
      ['500', errors, 0],
    ])
  })

  it('refuses a column that is not categorical', async () => {
    const error = await runCompare({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, compare: 'week', columns: ['duration_ms'] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
  })
})

import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setDatabase, type Database } from '@/lib/db/client'
import { DATASETS } from '@/lib/datasets/catalog'
import { checkFilter, checkFilterSync } from '@/lib/query/filter'
import { defaultPatternColumn, PATTERN_SAMPLE_ROWS, patternClause, runPatterns } from '@/lib/query/patterns'
import { runQuery } from '@/lib/query/service'
import { writeRequestLog } from '@/lib/request-log/store'
import { addClause } from '@/lib/view/drilldown'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'
import { appError } from '@/test-support/app-error'

// Patterns against a real database (PGlite by default; Postgres with QUERY_TEST_DATABASE_URL):
// each row's route is built from a known template and generated variable parts, so the expected
// templates and their counts are known here without running any regular expression.

let testDatabase: TestDatabase
let database: Database

const DAY = '2026-04-02'
const BIG_DAY = '2026-04-04'
const base = Date.parse(`${DAY}T00:00:00Z`)

const hex = (i: number) => `${(0x9f8e7d6c + i).toString(16)}5b4a3210` // 16 hex digits, letters and digits
const uuid = (i: number) => `${(0x1a2b3c4d + i).toString(16)}-0e1f-4a5b-8c6d-${(0xabcdef000000 + i).toString(16)}`

// template → how many rows, and how to make row i's value
const KINDS: Array<{ template: string; rows: number; make: (i: number) => string }> = [
  { template: '/api/users/<num>/orders/<hex>', rows: 90, make: (i) => `/api/users/${100 + i}/orders/${hex(i)}` },
  { template: '/api/sessions/<uuid>', rows: 80, make: (i) => `/api/sessions/${uuid(i)}` },
  // IPv4 and IPv6 share one template.
  {
    template: '/api/ip/<ip>/check',
    rows: 70,
    make: (i) => (i % 2 ? `/api/ip/10.${i % 256}.${(i * 7) % 256}.1/check` : `/api/ip/2001:db8::${(i + 10).toString(16)}/check`),
  },
  {
    template: '/api/events/<time>',
    rows: 60,
    make: (i) => `/api/events/2026-04-02T${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:05.123Z`,
  },
  // `v2` touches a letter and stays; the page number stands alone.
  { template: '/api/v2/items/<num>?page=<num>', rows: 50, make: (i) => `/api/v2/items/${i * 31}?page=${i % 9}` },
  { template: '/api/tokens/<id>', rows: 40, make: (i) => `/api/tokens/tok_${i}Zq-${'x'.repeat(12)}yy` },
  // `%`, `_` and `'` in the literal parts: the clause escapes them.
  { template: "/api/search_q/<num>%/it's", rows: 30, make: (i) => `/api/search_q/${i}%/it's` },
  // No variable part: the host's digits touch letters.
  { template: '/static/a1b2.cdn.example.com/logo.png', rows: 20, make: () => '/static/a1b2.cdn.example.com/logo.png' },
  { template: '/api/deadbeefcafe/ping', rows: 10, make: () => '/api/deadbeefcafe/ping' },
  { template: 'retry <num> of <num> after 150ms at <time>', rows: 5, make: (i) => `retry ${i} of 5 after 150ms at 12:00:${String(i).padStart(2, '0')}` },
]

type Row = Parameters<typeof writeRequestLog>[1][number]
const row = (time: Date, requestId: string, route: string, extra: Partial<Row> = {}): Row => ({
  time,
  requestId,
  method: 'GET',
  route,
  status: 200,
  durationMs: 1,
  ...extra,
})

const ROWS: Array<Row & { template: string }> = KINDS.flatMap((k, kind) =>
  Array.from({ length: k.rows }, (_, i) => ({
    ...row(new Date(base + (kind * 100 + i) * 30_000), `pt-${kind}-${i}`, k.make(i), {
      method: i % 3 === 0 ? 'POST' : 'GET',
      mcpTool: i % 4 === 0 ? null : `tool${i % 3}-run-${i}`,
    }),
    template: k.template,
  })),
)
// More matching rows than the sample holds: the oldest 500 have a template the newest do not.
const BIG: Row[] = Array.from({ length: PATTERN_SAMPLE_ROWS + 500 }, (_, i) =>
  row(new Date(Date.parse(`${BIG_DAY}T00:00:00Z`) + i * 8000), `pt-big-${i}`, i < 500 ? `/old/${i}` : `/new/${i % 7}/x`),
)

beforeAll(async () => {
  testDatabase = await openTestDatabase('patterns')
  database = testDatabase.database
  await database.migrate()
  await database.db.execute(sql`TRUNCATE request_log, request_log_rollup RESTART IDENTITY`)
  await writeRequestLog(
    database.db,
    ROWS.map(({ template: _t, ...r }) => r),
  )
  await writeRequestLog(database.db, BIG)
  setDatabase(database)
}, 120_000)

afterAll(async () => {
  setDatabase(undefined)
  await testDatabase?.close()
})

const expectedTemplates = (rows: Array<{ template: string }>) => {
  const m = new Map<string, number>()
  for (const r of rows) m.set(r.template, (m.get(r.template) ?? 0) + 1)
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
}

describe(`patterns (${driverName})`, () => {
  it('clusters UUIDs, IPs, hex, times, numbers and tokens into the templates the rows were made from, counted exactly', async () => {
    const r = await runPatterns({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, column: 'route', limit: 50 })
    const expected = expectedTemplates(ROWS)
    expect(r.patterns.map((p) => [p.template, p.count])).toEqual(expected)
    expect(r.templates).toBe(KINDS.length)
    expect(r.sample).toEqual({ limit: PATTERN_SAMPLE_ROWS, rows: ROWS.length, matching: ROWS.length })
    for (const p of r.patterns) {
      expect(p.share).toBeCloseTo(p.count / ROWS.length, 12)
      const values = ROWS.filter((x) => x.template === p.template).map((x) => x.route)
      expect(values).toContain(p.example)
    }
    expect(r.statements).toHaveLength(1)
    expect(r.statements[0].sql.text).toContain('regexp_replace')
    expect(r.statements[0].sql.text).toContain(`LIMIT $`)
  })

  it('keeps the most frequent templates up to the limit, under a filter', async () => {
    const r = await runPatterns({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, column: 'route', filter: "method = 'POST'", limit: 3 })
    const matching = ROWS.filter((x) => x.method === 'POST')
    expect(r.patterns.map((p) => [p.template, p.count])).toEqual(expectedTemplates(matching).slice(0, 3))
    expect(r.templates).toBe(KINDS.length)
    expect(r.sample.rows).toBe(matching.length)
    expect(r.filter).toBe("method = 'POST'")
  })

  it('gives rows without a value their own pattern, selected by IS NULL', async () => {
    const r = await runPatterns({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, column: 'mcp_tool', limit: 50 })
    const nulls = ROWS.filter((x) => x.mcpTool === null).length
    const none = r.patterns.find((p) => p.template === null)!
    expect(none).toMatchObject({ count: nulls, example: null, filter: '"mcp_tool" IS NULL' })
    const counted = new Map<string, number>()
    // `tool1` touches a letter and stays; the run number stands alone.
    for (const x of ROWS) if (x.mcpTool) counted.set(`${x.mcpTool.split('-')[0]}-run-<num>`, (counted.get(`${x.mcpTool.split('-')[0]}-run-<num>`) ?? 0) + 1)
    expect(Object.fromEntries(r.patterns.filter((p) => p.template !== null).map((p) => [p.template, p.count]))).toEqual(Object.fromEntries(counted))
  })

  it("each pattern's filter passes the filter checker and selects exactly its rows here (a LIKE, never fewer)", async () => {
    const r = await runPatterns({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, column: 'route', limit: 50 })
    await checkFilter('', DATASETS.requests) // loads the parser checkFilterSync uses
    for (const p of r.patterns) {
      expect(p.filter).not.toBeNull()
      expect(() => checkFilterSync(p.filter, DATASETS.requests)).not.toThrow()
      const q = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: addClause('status = 200 OR status = 404', p.filter!), limit: 1 })
      expect(q.count, p.template!).toBe(p.count)
    }
  })

  it('counts within the newest rows of the range when more rows match than the sample holds', async () => {
    const r = await runPatterns({ dataset: 'requests', dateFrom: BIG_DAY, dateTo: BIG_DAY, column: 'route' })
    expect(r.sample).toEqual({ limit: PATTERN_SAMPLE_ROWS, rows: PATTERN_SAMPLE_ROWS, matching: BIG.length })
    const newest = BIG.slice(-PATTERN_SAMPLE_ROWS)
    const expected = expectedTemplates(newest.map((x) => ({ template: x.route.replace(/\d+/, '<num>') })))
    expect(r.patterns.map((p) => [p.template, p.count])).toEqual(expected)
    expect(r.patterns.some((p) => p.template === '/old/<num>')).toBe(false)
    expect(r.statements.map((s) => s.label)).toEqual([`Patterns of route in the newest 10,000 matching rows`, 'Matching rows of the range'])
  })

  it('refuses columns that are not text, naming the ones allowed', async () => {
    const req = { dataset: 'requests' as const, dateFrom: DAY, dateTo: DAY }
    const e = await appError(runPatterns({ ...req, column: 'status' }))
    expect(e.code).toBe('invalid_input')
    expect(e.message).toBe(
      'column: "status" is not a text column of requests; patterns are for request_id, method, route, query, country, user_agent, referrer, mcp_tool',
    )
    expect((await appError(runPatterns({ ...req, column: 'client_ip' }))).message).toMatch(/not a text column/)
    expect((await appError(runPatterns({ ...req, column: 'route', limit: 51 }))).message).toMatch(/limit/)
    expect((await appError(runPatterns({ ...req, column: 'route', filter: 'pg_sleep(1) IS NULL' }))).message).toMatch(/function pg_sleep/)
  })
})

describe('pattern clause', () => {
  it('turns placeholders into % and escapes %, _, \\ and quotes in the literal parts', () => {
    expect(patternClause('route', '/api/users/<num>/orders/<hex>')).toBe(`"route" LIKE '/api/users/%/orders/%'`)
    expect(patternClause('route', "a_b%c\\d's <uuid>")).toBe(`"route" LIKE 'a\\_b\\%c\\\\d''s %'`)
    expect(patternClause('route', 'plain')).toBe(`"route" LIKE 'plain'`)
    expect(patternClause('my "col"', '<id>')).toBe(`"my ""col""" LIKE '%'`)
    expect(patternClause('route', null)).toBe('"route" IS NULL')
    expect(patternClause('route', 'x'.repeat(5000))).toBeNull()
  })

  it('makes clauses the checker accepts', async () => {
    await checkFilter('', DATASETS.requests)
    for (const t of ["a_b%c\\d's <uuid>", '<num>', '/x/<ip>:<num>', null])
      expect(() => checkFilterSync(patternClause('route', t), DATASETS.requests)).not.toThrow()
  })

  it('offers a default column for every dataset, a text one', () => {
    expect(defaultPatternColumn(DATASETS.requests)).toBe('route')
    expect(defaultPatternColumn(DATASETS.dns)).toBe('query_name')
    expect(defaultPatternColumn(DATASETS.http)).toBe('url')
    for (const d of Object.values(DATASETS)) {
      const c = defaultPatternColumn(d)
      if (c) expect(d.columns.find((x) => x.name === c)?.type).toBe('text')
    }
  })
})

import { gzipSync } from 'node:zlib'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gatewayDns } from '@/lib/datasets/dns/tables'
import { setDatabase, type Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { ingestBatch } from '@/lib/ingest/logpush'
import { writeRequestLog } from '@/lib/request-log/store'
import { rebuildRollup } from '@/lib/datasets/storage/rollups'
import { DATASETS } from '@/lib/datasets/catalog'
import { createRequestLogWriter } from '@/lib/request-log/writer'
import { readOnly, runDashboard, runQuery } from '@/lib/query/service'
import { INJECTION_CORPUS } from '@/test-support/injection-corpus'
import { requestLogEntry } from '@/test-support/request-log-entry'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'
import { appError } from '@/test-support/app-error'

// The query application's data functions against a real database: PGlite in memory by default,
// or Postgres through node-postgres or the Neon driver (test-support/query-database.ts).
// scripts/test.mjs runs all three. The Postgres database is emptied first.

let testDatabase: TestDatabase
let database: Database

const DAY = '2026-01-10'
const base = Date.parse(`${DAY}T00:00:00Z`)
const MAIN = Array.from({ length: 250 }, (_, i) => ({
  time: new Date(base + i * 60_000),
  requestId: `fx-${i}`,
  method: i % 3 === 0 ? 'POST' : 'GET',
  route: `/api/r${i % 12}`,
  status: i % 10 === 0 ? 500 : i % 7 === 0 ? 404 : 200,
  durationMs: i + 1,
  clientIp: '198.51.100.0',
}))
const EDGES = [
  { time: new Date(`${DAY}T23:59:59.999Z`), requestId: 'fx-last', method: 'GET', route: '/api/edge', status: 201, durationMs: 1000, clientIp: null },
  { time: new Date('2026-01-11T00:00:00Z'), requestId: 'fx-next-day', method: 'GET', route: '/api/edge', status: 202, durationMs: 1000, clientIp: null },
  { time: new Date('2026-01-09T23:59:59Z'), requestId: 'fx-prev-day', method: 'GET', route: '/api/edge', status: 203, durationMs: 1000, clientIp: null },
]
const DAY_ROWS = MAIN.length + 1

/** Runs a statement as reported (text and parameters) through the driver itself. */
async function replay(statement: { text: string; params: unknown[] }): Promise<Array<Record<string, unknown>>> {
  const client = (database.db as unknown as { $client: { query(text: string, params: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> } }).$client
  return (await client.query(statement.text, statement.params)).rows
}

async function snapshot() {
  const tables = await database.db.execute(
    sql`SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`,
  )
  const counts = await database.db.execute(
    sql`SELECT (SELECT count(*) FROM request_log) AS r, (SELECT count(*) FROM gateway_dns) AS d, (SELECT count(*) FROM gateway_http) AS h, (SELECT count(*) FROM gateway_network) AS n, (SELECT count(*) FROM gateway_sessions) AS s, (SELECT sum(status) FROM request_log) AS st, (SELECT sum(rows) FROM request_log_rollup) AS rr, (SELECT sum(rows) FROM gateway_dns_rollup) AS dr`,
  )
  const rows = (r: unknown) =>
    JSON.parse(JSON.stringify((r as { rows: unknown[] }).rows, (_, v) => (typeof v === 'bigint' ? String(v) : typeof v === 'number' ? String(v) : v)))
  return { tables: rows(tables), counts: rows(counts) }
}

beforeAll(async () => {
  testDatabase = await openTestDatabase('')
  database = testDatabase.database
  expect(database.driver).toBe({ neon: 'neon-serverless', postgres: 'node-postgres', pglite: 'pglite' }[driverName])
  await database.migrate()
  await database.migrate() // idempotent
  await database.db.execute(
    sql`TRUNCATE request_log, gateway_dns, gateway_http, gateway_network, gateway_sessions, request_log_rollup, gateway_dns_rollup, gateway_http_rollup, gateway_network_rollup, gateway_sessions_rollup RESTART IDENTITY`,
  )
  await writeRequestLog(database.db, [...MAIN, ...EDGES])
  setDatabase(database)
}, 60_000)

afterAll(async () => {
  setDatabase(undefined)
  await testDatabase?.close()
})

describe(`runQuery (${driverName})`, () => {
  it('pages through every matching row, newest first, with the full count on each page', async () => {
    const pages = await Promise.all([0, 100, 200].map((offset) => runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, offset })))
    expect(pages.map((p) => p.rows.length)).toEqual([100, 100, DAY_ROWS - 200])
    expect(pages.map((p) => p.count)).toEqual([DAY_ROWS, DAY_ROWS, DAY_ROWS])
    const all = pages.flatMap((p) => p.rows)
    expect(new Set(all.map((r) => r.request_id)).size).toBe(DAY_ROWS)
    expect(all[0]).toMatchObject({ request_id: 'fx-last', time: `${DAY}T23:59:59.999Z`, status: 201, duration_ms: 1000, client_ip: null, demo: false })
    const times = all.map((r) => Date.parse(r.time as string))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(pages[0].columns).toEqual(Object.keys(all[0]))
  })

  it('returns no rows but the count past the last page', async () => {
    const r = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, offset: DAY_ROWS, limit: 500 })
    expect(r.rows).toEqual([])
    expect(r.count).toBe(DAY_ROWS)
  })

  it('defaults the limit to 100 and accepts 1 and 500', async () => {
    expect((await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY })).rows).toHaveLength(100)
    expect((await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, limit: 1 })).rows).toHaveLength(1)
    expect((await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, limit: 500 })).rows).toHaveLength(DAY_ROWS)
  })

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 501 }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ limit: '10' }, 'limit'],
    [{ offset: -1 }, 'offset'],
    [{ offset: 0.5 }, 'offset'],
    [{ dataset: 'pg_shadow' }, 'dataset'],
    [{ dateFrom: '2026-01-11', dateTo: '2026-01-10' }, 'dateTo: must not be before dateFrom'],
    [{ dateFrom: '2026-01-01', dateTo: '2026-02-01' }, 'longer than 31 days'],
    [{ dateFrom: '2026-13-01' }, 'dateFrom'],
    [{ dateTo: '10/01/2026' }, 'dateTo'],
    [{ dateFrom: undefined }, 'dateFrom'],
    [{ extra: 1 }, 'extra'],
  ])('rejects %j', async (change, fragment) => {
    const e = await appError(runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, ...change } as never))
    expect(e.code).toBe('invalid_input')
    expect(e.message).toContain(fragment)
  })

  it('accepts a range of exactly the maximum', async () => {
    expect((await runQuery({ dataset: 'requests', dateFrom: '2026-01-01', dateTo: '2026-01-31' })).count).toBe(DAY_ROWS + 2)
  })

  it('includes the whole day for a bare dateTo and excludes a date-time dateTo', async () => {
    const count = async (dateFrom: string, dateTo: string) => (await runQuery({ dataset: 'requests', dateFrom, dateTo })).count
    expect(await count(DAY, DAY)).toBe(DAY_ROWS)
    expect(await count(`${DAY}T00:00:00Z`, '2026-01-11T00:00:00Z')).toBe(DAY_ROWS)
    expect(await count(`${DAY}T00:00:00Z`, '2026-01-11T00:00:00.001Z')).toBe(DAY_ROWS + 1)
    expect(await count(`${DAY}T01:00:00+01:00`, `${DAY}T00:00:00Z`)).toBe(0) // offsets honoured: an empty range
    expect(await count(`${DAY}T00:00:00`, `${DAY}T00:10:00`)).toBe(10) // no offset: UTC
  })

  it('applies the filter, and reports the exact statements and parameters', async () => {
    const r = await runQuery({
      dataset: 'requests',
      dateFrom: DAY,
      dateTo: DAY,
      filter: "status = 500 AND method = 'GET' -- only errors",
      limit: 10,
      offset: 5,
    })
    const errors = MAIN.filter((m) => m.status === 500 && m.method === 'GET').length
    expect([r.count, r.countExact]).toEqual([errors, true])
    expect(r.rows).toHaveLength(10)
    expect(r.rows.every((row) => row.status === 500)).toBe(true)
    expect(r.filter).toBe("status = 500 AND method = 'GET'")
    expect(r.sql.text).toBe(
      'SELECT "time", "request_id", "method", "route", "query", "status", "duration_ms", "client_ip", "country", "user_agent", "referrer", "api_key_present", "rate_limited", "mcp_tool", "demo", "id" AS "_id", (extract(epoch FROM "time") * 1000000)::bigint AS "_cursor_us" FROM "request_log" WHERE "time" >= $1::timestamptz AND "time" < $2::timestamptz AND (status = 500 AND method = \'GET\') ORDER BY "time" DESC, "id" DESC LIMIT $3 OFFSET $4',
    )
    expect(r.sql.params).toEqual([`${DAY}T00:00:00.000Z`, '2026-01-11T00:00:00.000Z', 10, 5])
    // Two columns: not something the rollup answers, so a count capped past QUERY_EXACT_COUNT_LIMIT.
    expect(r.countSql.text).toBe(
      'SELECT count(*) AS "count" FROM (SELECT 1 FROM "request_log" WHERE "time" >= $1::timestamptz AND "time" < $2::timestamptz AND (status = 500 AND method = \'GET\') LIMIT $3) AS "matching"',
    )
    expect(r.countSql.params).toEqual([`${DAY}T00:00:00.000Z`, '2026-01-11T00:00:00.000Z', 100_001])
    expect(r.range).toEqual({ from: `${DAY}T00:00:00.000Z`, to: '2026-01-11T00:00:00.000Z' })
    expect(r.elapsedMs).toBeGreaterThanOrEqual(0)
  })

  it('counts from the rollup when the filter is on one rollup column', async () => {
    const r = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'status = 500' })
    expect([r.count, r.countExact]).toEqual([25, true])
    expect(r.countSql.text).toBe(
      'SELECT coalesce(sum("rows"), 0) AS "count" FROM (SELECT * FROM "request_log_rollup" WHERE "dimension" = $1 AND "grain" = $2 AND "bucket" >= $3::timestamptz AND "bucket" < $4::timestamptz) AS "rollup" WHERE (status = 500)',
    )
    expect(r.countSql.params).toEqual(['status', 'hour', `${DAY}T00:00:00.000Z`, '2026-01-11T00:00:00.000Z'])
  })

  it.each([
    ['status = 404', 32],
    ["method = 'POST' AND status = 200", MAIN.filter((m) => m.method === 'POST' && m.status === 200).length],
    ["client_ip << '198.51.100.0/24'", 250],
    ["route IN ('/api/r1', '/api/r2')", 42],
    ['client_ip IS NULL', 1],
    ["lower(route) LIKE '%edge'", 1],
  ])('filter %s counts %i rows', async (filter, expected) => {
    expect((await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter })).count).toBe(expected)
  })

  it.each([
    ['nope = 1', 'unknown column "nope"'],
    ["client_ip LIKE '198%'", 'The database rejected the filter'],
    ["status = 'abc'", 'The database rejected the filter'],
  ])('rejects the filter %s with a 400', async (filter, fragment) => {
    const e = await appError(runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter }))
    expect(e.code).toBe('invalid_input')
    expect(e.message).toContain(fragment)
  })
})

describe(`runDashboard (${driverName})`, () => {
  it('returns every panel of the dataset from the rollup, consistent with the rows', async () => {
    const d = await runDashboard({ dataset: 'requests', dateFrom: DAY, dateTo: DAY })
    expect(d.panels.map((p) => p.id)).toEqual([
      'count_over_time',
      'latency',
      'by_status',
      'top_route',
      'top_client_ip',
      'top_country',
      'top_user_agent',
      'top_mcp_tool',
    ])
    expect(d.panels.every((p) => p.source === 'rollup')).toBe(true)
    const byId = Object.fromEntries(d.panels.map((p) => [p.id, p]))
    const series = byId.count_over_time
    if (series.kind !== 'timeseries') throw new Error('count_over_time kind')
    expect(series.bucketSeconds).toBe(900)
    expect(series.buckets).toHaveLength(96)
    expect(series.buckets[0]).toBe(`${DAY}T00:00:00.000Z`)
    expect(series.series[0].values.reduce((a, b) => a + b, 0)).toBe(DAY_ROWS)
    expect(series.series[0].values[0]).toBe(15) // minutes 0–14
    const latency = byId.latency
    if (latency.kind !== 'latency') throw new Error('latency kind')
    const durations = [...MAIN.map((m) => m.durationMs), 1000].sort((a, b) => a - b)
    const pct = (p: number) => {
      const pos = p * (durations.length - 1)
      const lo = Math.floor(pos)
      return durations[lo] + (durations[Math.min(lo + 1, durations.length - 1)] - durations[lo]) * (pos - lo)
    }
    expect(latency.count).toBe(DAY_ROWS)
    // From the rollup's histogram: within 2^(1/4) − 1 of the exact value, plus 1 ms.
    for (const [estimate, exact] of [
      [latency.p50Ms!, pct(0.5)],
      [latency.p95Ms!, pct(0.95)],
    ])
      expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(0.1892 * exact + 1)
    expect(latency.errorRate).toBe(25 / DAY_ROWS)
    expect(latency.clientErrorRate).toBe(32 / DAY_ROWS)
    const status = byId.by_status
    if (status.kind !== 'breakdown') throw new Error('by_status kind')
    expect(status.sql.text).toBe(
      'SELECT "status" AS "value", sum("rows") AS "count" FROM (SELECT * FROM "request_log_rollup" WHERE "dimension" = $1 AND "grain" = $2 AND "bucket" >= $3::timestamptz AND "bucket" < $4::timestamptz) AS "rollup" GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $5',
    )
    expect(status.sql.params).toEqual(['status', 'hour', `${DAY}T00:00:00.000Z`, '2026-01-11T00:00:00.000Z', 20])
    // The SQL shown is the SQL that ran: replayed, it gives the panel's rows.
    const replayed = await replay(status.sql)
    expect(replayed.map((r) => ({ value: Number(r.value), count: Number(r.count) }))).toEqual(status.rows)
    expect(status.rows).toEqual([
      { value: 200, count: DAY_ROWS - 1 - 25 - 32 },
      { value: 404, count: 32 },
      { value: 500, count: 25 },
      { value: 201, count: 1 },
    ])
    const routes = byId.top_route
    if (routes.kind !== 'top') throw new Error('top_route kind')
    expect(routes.rows).toHaveLength(10)
    expect(routes.rows[0]).toEqual({ value: '/api/r0', count: 21 })
    const countries = byId.top_country
    expect(countries.kind === 'top' && countries.rows).toEqual([]) // no known values
  })

  it('applies the filter to every panel, from the rollup where it can answer and from the rows elsewhere', async () => {
    const d = await runDashboard({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'status = 500' })
    const latency = d.panels.find((p) => p.id === 'latency')
    expect(latency).toMatchObject({ count: 25, errorRate: 1, source: 'rows' })
    expect(d.filter).toBe('status = 500')
    expect(Object.fromEntries(d.panels.map((p) => [p.id, p.source]))).toEqual({
      count_over_time: 'rollup',
      latency: 'rows',
      by_status: 'rollup',
      top_route: 'rows',
      top_client_ip: 'rows',
      top_country: 'rows',
      top_user_agent: 'rows',
      top_mcp_tool: 'rows',
    })
    const series = d.panels[0]
    expect(series.kind === 'timeseries' && series.series[0].values.reduce((a, b) => a + b, 0)).toBe(25)
  })

  it('reads raw rows for a filter the rollup cannot answer, with exact percentiles', async () => {
    const d = await runDashboard({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'duration_ms >= 0' })
    expect(d.panels.every((p) => p.source === 'rows')).toBe(true)
    const durations = [...MAIN.map((m) => m.durationMs), 1000].sort((a, b) => a - b)
    const pct = (p: number) => {
      const pos = p * (durations.length - 1)
      const lo = Math.floor(pos)
      return durations[lo] + (durations[Math.min(lo + 1, durations.length - 1)] - durations[lo]) * (pos - lo)
    }
    expect(d.panels.find((p) => p.id === 'latency')).toMatchObject({
      count: DAY_ROWS,
      p50Ms: Math.round(pct(0.5) * 100) / 100,
      p95Ms: Math.round(pct(0.95) * 100) / 100,
      errorRate: 25 / DAY_ROWS,
    })
  })

  it('reads the rollup for a range that is not whole minutes, the rows only at its edges', async () => {
    const d = await runDashboard({ dataset: 'requests', dateFrom: `${DAY}T00:00:30Z`, dateTo: `${DAY}T02:00:00Z` })
    expect(d.panels.every((p) => p.source === 'rollup')).toBe(true)
    expect(d.panels.find((p) => p.id === 'latency')).toMatchObject({ count: 119 })
  })

  it('buckets a 30-day range in 6-hour steps', async () => {
    const d = await runDashboard({ dataset: 'requests', dateFrom: '2026-01-01', dateTo: '2026-01-30' })
    const series = d.panels[0]
    expect(series.kind === 'timeseries' && [series.bucketSeconds, series.buckets.length]).toEqual([21_600, 120])
  })

  it('rejects what runQuery rejects', async () => {
    expect((await appError(runDashboard({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'secret = 1' }))).message).toContain(
      'unknown column "secret"',
    )
    expect((await appError(runDashboard({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, limit: 10 } as never))).code).toBe('invalid_input')
  })

  it('runs the panels of every gateway dataset', async () => {
    for (const dataset of ['dns', 'http', 'network', 'sessions'] as const) {
      const d = await runDashboard({ dataset, dateFrom: DAY, dateTo: DAY })
      expect(d.panels.length).toBeGreaterThan(3)
    }
  })
})

describe(`database defences (${driverName})`, () => {
  it.each([
    ['DELETE', sql`DELETE FROM request_log`],
    ['INSERT', sql`INSERT INTO request_log (time, request_id, method, route, status, duration_ms) VALUES (now(), 'x', 'GET', '/', 200, 1)`],
    ['UPDATE', sql`UPDATE request_log SET status = 0`],
    ['CREATE', sql`CREATE TABLE pwned (x int)`],
  ])('refuses %s inside the read-only transaction', async (_, statement) => {
    const before = await snapshot()
    const e = await appError(readOnly({}, (session) => session.execute(statement)))
    expect(e.code).toBe('forbidden')
    expect(await snapshot()).toEqual(before)
  })

  it('cannot read tables outside the datasets', async () => {
    const e = await appError(readOnly({}, (session) => session.execute(sql`SELECT * FROM drizzle.__drizzle_migrations`)))
    expect(e.code).toBe('forbidden')
    expect(e.message).toContain('permission denied')
  })

  it('runs as query_ro', async () => {
    const rows = await readOnly({}, (session) => session.execute(sql`SELECT current_user AS u, current_setting('transaction_read_only') AS ro`))
    expect(rows[0]).toEqual({ u: 'query_ro', ro: 'on' })
  })

  it('runs with bounded memory and temporary disk, with the default and a tighter timeout', async () => {
    const settings = sql`SELECT current_setting('work_mem') AS work_mem, current_setting('temp_file_limit') AS temp_file_limit`
    const expected = { work_mem: '4MB', temp_file_limit: '256MB' }
    expect((await readOnly({}, (session) => session.execute(settings)))[0]).toEqual(expected)
    expect((await readOnly({ timeoutMs: 1000 }, (session) => session.execute(settings)))[0]).toEqual(expected)
  })

  it('refuses a filter whose values would grow past the budget before any SQL runs', async () => {
    let expr = 'route'
    for (let i = 0; i < 9; i++) expr = `replace(${expr}, '/', '//////////')`
    const e = await appError(runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: `${expr} LIKE '%x%'`, limit: 5 }))
    expect(e.code).toBe('invalid_input')
    expect(e.message).toContain('replace() could make a value of up to')
  })

  it('cannot switch the transaction back to read-write', async () => {
    await expect(readOnly({}, (session) => session.execute(sql`SELECT set_config('transaction_read_only', 'off', true)`))).rejects.toThrow(
      'read-write mode must be set before any query',
    )
  })

  it('reads day partitions only through their parent', async () => {
    const e = await appError(readOnly({}, (session) => session.execute(sql`SELECT count(*) FROM request_log_default`)))
    expect(e.message).toContain('permission denied')
  })

  // PGlite runs Postgres single-threaded in WASM without timer interrupts, so statement_timeout
  // cannot fire there (docs/query.md, "Data: partitions, retention, rollups"); the timeout is a Postgres guarantee.
  if (driverName !== 'pglite') {
    it('turns a statement timeout into a clear error', async () => {
      const e = await appError(readOnly({ timeoutMs: 50 }, (session) => session.execute(sql`SELECT pg_sleep(2)`)))
      expect(e.code).toBe('upstream_timeout')
      expect(e.message).toContain('50 ms statement timeout (QUERY_STATEMENT_TIMEOUT_MS)')
    })
  }

  it(`survives the injection corpus (${INJECTION_CORPUS.length} payloads) with the database unchanged`, async () => {
    const before = await snapshot()
    let refused = 0
    for (const filter of INJECTION_CORPUS) {
      for (const dataset of ['requests', 'dns'] as const) {
        try {
          await runQuery({ dataset, dateFrom: DAY, dateTo: DAY, filter, limit: 5 })
        } catch (error) {
          expect(error, filter).toBeInstanceOf(AppError)
          expect((error as AppError).code, filter).toBe('invalid_input')
          refused++
        }
      }
    }
    expect(refused).toBeGreaterThanOrEqual(INJECTION_CORPUS.length)
    expect(await snapshot()).toEqual(before)
  }, 60_000)
})

describe(`ingest (${driverName})`, () => {
  const line = (i: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      Datetime: i % 2 ? `${DAY}T12:00:0${i}Z` : Date.parse(`${DAY}T12:00:0${i}Z`) * 1e6,
      ColoCode: 'CDG',
      Email: `user${i}@example.com`,
      QueryName: 'ingest.example.org',
      QueryID: `q-${i}`,
      QueryCategoryNames: ['Technology', 'Business'],
      RCode: 0,
      ResolvedIPs: ['192.0.2.1', '192.0.2.2'],
      ResolverDecision: 'allowedOnNoPolicyMatch',
      SrcIP: '2001:db8::1',
      RedirectTargetURI: '',
      ...extra,
    })

  it('loads a gzip batch, reports malformed lines, and ignores a re-delivery', async () => {
    const batch = [line(1), line(2), line(3), '{not json', JSON.stringify({ QueryName: 'no-time.example' }), line(4, { RCode: 'x' }), ''].join('\n')
    const first = await ingestBatch('dns', batch)
    expect(first).toEqual({
      dataset: 'dns',
      lines: 6,
      inserted: 3,
      duplicates: 0,
      malformed: 3,
      errors: [
        { line: 4, message: 'not valid JSON' },
        { line: 5, message: 'Datetime: missing' },
        { line: 6, message: 'RCode: expected integer, got "x"' },
      ],
    })
    const again = await ingestBatch('dns', batch)
    expect(again).toMatchObject({ inserted: 0, duplicates: 3, malformed: 3 })

    const r = await runQuery({ dataset: 'dns', dateFrom: DAY, dateTo: DAY, filter: "query_name = 'ingest.example.org'" })
    expect(r.count).toBe(3)
    expect(r.rows.at(-1)).toMatchObject({
      datetime: `${DAY}T12:00:01.000Z`,
      query_category_names: 'Technology, Business',
      resolved_ips: '192.0.2.1, 192.0.2.2',
      rcode: 0,
      src_ip: '2001:db8::1',
      redirect_target_uri: null,
      demo: false,
    })
    expect(r.rows[1].datetime).toBe(`${DAY}T12:00:02.000Z`) // unix nanoseconds
    expect(gzipSync(batch).byteLength).toBeGreaterThan(0)
  })

  it('inserts nothing when the batch fails part-way', async () => {
    const before = await snapshot()
    // The batch's second statement fails as a lost connection would: the insert from the staging
    // table after COPY (node-postgres, PGlite), or the second 10,000-row JSON chunk (Neon).
    const lines = Array.from({ length: 10_600 }, (_, i) => JSON.stringify({ Datetime: `${DAY}T13:00:00Z`, QueryID: `atomic-${i}` })).join('\n')
    let statements = 0
    const failing = new Proxy(database.db, {
      get(target, prop, receiver) {
        if (prop !== 'transaction') return Reflect.get(target, prop, receiver)
        return (fn: (tx: unknown) => Promise<unknown>) =>
          target.transaction((tx) =>
            fn(
              new Proxy(tx, {
                get: (t, p, r) =>
                  p === 'execute' && ++statements === 2
                    ? () => {
                        throw new Error('connection lost')
                      }
                    : Reflect.get(t, p, r),
              }),
            ),
          )
      },
    })
    await expect(ingestBatch('dns', lines, { db: failing })).rejects.toThrow('connection lost')
    expect(statements).toBe(2)
    expect(await snapshot()).toEqual(before)
    expect(await database.db.$count(gatewayDns, sql`query_id LIKE 'atomic-%'`)).toBe(0)
  })
})

describe(`request log writer (${driverName})`, () => {
  it('writes batches with truncated client addresses', async () => {
    const writer = createRequestLogWriter({ db: async () => database.db, flushMs: 60_000 })
    const entry = (requestId: string, clientIp: string) =>
      requestLogEntry({
        time: new Date(`${DAY}T20:00:00Z`),
        requestId,
        route: '/api/ipcheck',
        query: 'ip=***',
        durationMs: 3.5,
        clientIp,
        country: 'FR',
        userAgent: 'curl/8',
        apiKeyPresent: true,
      })
    writer.record(entry('rlw-1', '203.0.113.77'))
    writer.record(entry('rlw-2', '2001:db8:abcd:12::1'))
    writer.record(entry('rlw-3', 'unknown'))
    expect(writer.pending()).toBe(3)
    await writer.stop()
    expect(writer.pending()).toBe(0)
    const r = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: "request_id LIKE 'rlw-%'" })
    expect(Object.fromEntries(r.rows.map((row) => [row.request_id, row.client_ip]))).toEqual({
      'rlw-1': '203.0.113.0',
      'rlw-2': '2001:db8:abcd::',
      'rlw-3': null,
    })
    expect(r.rows[0]).toMatchObject({ query: 'ip=***', api_key_present: true, country: 'FR', duration_ms: 3.5 })
  })
})

describe(`idempotent request log (${driverName})`, () => {
  const day = '2026-01-14'
  const entry = (i: number) =>
    requestLogEntry({
      time: new Date(Date.parse(`${day}T09:00:00Z`) + i * 1000),
      requestId: `ack-${i}`,
      status: i % 10 === 0 ? 503 : 200,
      durationMs: 1 + (i % 7),
      clientIp: '203.0.113.9',
    })
  const stored = async () => {
    const [r] = (await replay({
      text: "SELECT count(*) AS n, count(DISTINCT request_id) AS d FROM request_log WHERE request_id LIKE 'ack-%'",
      params: [],
    })) as Array<{ n: string; d: string }>
    const rollup = await runQuery({ dataset: 'requests', dateFrom: day, dateTo: day })
    return { rows: Number(r.n), distinct: Number(r.d), rollup: rollup.count }
  }

  it('stores every request once when insert acknowledgements are lost and batches are written again', async () => {
    // The first two writes reach the database, but their answers are lost: the writer keeps the
    // batch and writes it again with the next one.
    let writes = 0
    const lossy = new Proxy(database.db, {
      get: (target, prop, receiver) =>
        prop !== 'transaction'
          ? Reflect.get(target, prop, receiver)
          : async (fn: never) => {
              const result = await target.transaction(fn) // committed…
              if (++writes <= 2) throw new Error('Connection terminated: acknowledgement lost') // …but the answer is lost
              return result
            },
    })
    const writer = createRequestLogWriter({ db: async () => lossy, flushMs: 60_000, backoffMinMs: 0, backoffMaxMs: 0 })
    for (let i = 0; i < 300; i++) writer.record(entry(i))
    await writer.flush()
    expect(writer.pending()).toBe(300) // kept for retry, though stored
    await writer.flush()
    for (let i = 300; i < 400; i++) writer.record(entry(i))
    await writer.stop()
    expect([writes, writer.pending()]).toEqual([3, 0])
    expect(await stored()).toEqual({ rows: 400, distinct: 400, rollup: 400 })
  })

  it('ignores replays, including two writers replaying the same batch at once', async () => {
    // The writer stores client networks; a replay carries what was stored.
    const rows = Array.from({ length: 400 }, (_, i) => ({ ...entry(i), clientIp: '203.0.113.0' }))
    expect(await writeRequestLog(database.db, rows)).toBe(0)
    const more = Array.from({ length: 200 }, (_, i) => entry(400 + i))
    const inserted = await Promise.all([writeRequestLog(database.db, more), writeRequestLog(database.db, more)])
    expect(inserted[0] + inserted[1]).toBe(200)
    expect(await stored()).toEqual({ rows: 600, distinct: 600, rollup: 600 })
  })
})

describe(`exact dashboard ratios (${driverName})`, () => {
  // 3 server errors and 47 client errors in 11,424 requests: 0.026 % and 0.41 %, which rounding to
  // two decimals before scaling turned into 0.
  const day = '2026-01-12'
  beforeAll(async () => {
    const rows = Array.from({ length: 11_424 }, (_, i) => ({
      time: new Date(Date.parse(`${day}T00:00:00Z`) + i * 7000),
      requestId: `ratio-${i}`,
      method: 'GET',
      route: '/api/ratio',
      status: i < 3 ? 500 : i < 50 ? 404 : 200,
      durationMs: 5,
      clientIp: null,
    }))
    await writeRequestLog(database.db, rows)
  }, 60_000)

  it.each([
    ['rollup', undefined],
    ['rows', "route = '/api/ratio' AND method = 'GET'"],
  ])('returns 3/11,424 and 47/11,424 unrounded (from the %s)', async (source, filter) => {
    const d = await runDashboard({ dataset: 'requests', dateFrom: day, dateTo: day, filter })
    expect(d.panels.find((p) => p.id === 'latency')).toMatchObject({ source, count: 11_424, errorRate: 3 / 11_424, clientErrorRate: 47 / 11_424 })
  })

  it('marks a count above the exact limit as an estimate, with the statement it came from', async () => {
    const r = await runQuery({ dataset: 'requests', dateFrom: day, dateTo: day, filter: "method = 'GET'" }, { exactCountLimit: 1000 })
    expect(r.countExact).toBe(false)
    expect(r.count).toBeGreaterThan(1000)
    expect(r.countSql.params.at(-1)).toBe(1001)
    expect(r.estimateSql?.text).toMatch(/^EXPLAIN \(FORMAT JSON\) SELECT 1 FROM "request_log" WHERE /)
    expect(r.nextCursor).not.toBeNull()
  })
})

describe(`keyset paging (${driverName})`, () => {
  const day = '2026-01-13'
  beforeAll(async () => {
    // Ties on the time column and microseconds the page's JSON cannot show: only (time, id) orders them.
    await database.db.execute(sql`INSERT INTO request_log (time, request_id, method, route, status, duration_ms)
      SELECT timestamptz '2026-01-13T10:00:00Z' + (g / 4) * interval '1 millisecond' + (g % 2) * interval '1 microsecond', 'key-' || g, 'GET', '/api/keyset', 200, 1
      FROM generate_series(1, 53) AS g`)
    await rebuildRollup(database.db, DATASETS.requests)
  }, 60_000)

  it('visits every row once, in the order of offset paging, and stops on the last page', async () => {
    const request = { dataset: 'requests' as const, dateFrom: day, dateTo: day, filter: "route = '/api/keyset'" }
    const all = (await runQuery({ ...request, limit: 500 })).rows.map((r) => r.request_id)
    expect(all).toHaveLength(53)
    const seen: unknown[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await runQuery({ ...request, limit: 7, offset: seen.length, cursor })
      if (cursor)
        expect(page.sql.text).toContain(
          'AND "time" <= $3::timestamptz AND ("time", "id") < ($4::timestamptz, $5::bigint) ORDER BY "time" DESC, "id" DESC LIMIT $6',
        )
      expect(page.offset).toBe(seen.length)
      seen.push(...page.rows.map((r) => r.request_id))
      cursor = page.nextCursor ?? undefined
      pages++
    } while (cursor)
    expect(pages).toBe(8)
    expect(seen).toEqual(all)
  })

  it('rejects a cursor it did not issue', async () => {
    const e = await appError(runQuery({ dataset: 'requests', dateFrom: day, dateTo: day, cursor: "2026-01-13T10:00:00Z'; DROP TABLE x" }))
    expect([e.code, e.message]).toEqual(['invalid_input', 'cursor: must be a row key returned by an earlier page (nextCursor or keys)'])
  })
})

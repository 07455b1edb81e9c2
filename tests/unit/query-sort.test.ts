import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setDatabase, type Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { DATASET_IDS, DATASETS } from '@/lib/datasets/catalog'
import { writeRequestLog } from '@/lib/request-log/store'
import { runQuery, sortOrder } from '@/lib/query/service'
import { parseViewState, snapToBuckets, sortParam, sortRequest, viewHref, viewQuery } from '@/lib/view/view-state'
import { openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Sorting the rows: the allow-list of indexed columns (checked against the migrations), the ORDER
// BY it generates, the URL state, and paging through sorted rows against a real database (PGlite
// in memory, or the Postgres at QUERY_TEST_DATABASE_URL).

const dialect = new PgDialect()
const text = (q: ReturnType<typeof sortOrder>['sql']) => dialect.sqlToQuery(sql`ORDER BY ${q}`).sql

describe('sortable columns', () => {
  /** The leading column of every full btree index (and primary key) as the migrations leave them. */
  function indexedColumns(): Map<string, Set<string>> {
    const dir = path.join(process.cwd(), 'drizzle')
    const indexes = new Map<string, { table: string; column: string } | null>()
    const keys: Array<{ table: string; column: string }> = []
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      const migration = readFileSync(path.join(dir, file), 'utf8')
      for (const statement of migration.split(/;|--> statement-breakpoint/)) {
        const dropped = /DROP INDEX (?:IF EXISTS )?(.+)$/is.exec(statement.trim())
        if (dropped) for (const name of dropped[1].matchAll(/"([^"]+)"/g)) indexes.set(name[1], null)
        // A plain column (not an opclass such as text_pattern_ops) and no WHERE: ORDER BY can read it.
        const created = /CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?"([^"]+)" ON "([^"]+)" USING btree \("([^"]+)"(?: (?:ASC|DESC))?[,)]/i.exec(statement)
        if (created && !/\bWHERE\b/i.test(statement)) indexes.set(created[1], { table: created[2], column: created[3] })
        const table = /CREATE TABLE (?:IF NOT EXISTS )?"([^"]+)"/i.exec(statement)?.[1]
        const primary = /PRIMARY KEY\s*\("([^"]+)"/i.exec(statement)
        if (table && primary) keys.push({ table, column: primary[1] })
      }
    }
    const byTable = new Map<string, Set<string>>()
    for (const entry of [...indexes.values(), ...keys]) if (entry) byTable.set(entry.table, new Set([...(byTable.get(entry.table) ?? []), entry.column]))
    return byTable
  }

  it.each(DATASET_IDS)('%s: the time column first, then only columns an index starts with', (id) => {
    const dataset = DATASETS[id]
    expect(dataset.sortColumns[0]).toBe(dataset.timeColumn)
    const indexed = indexedColumns().get(dataset.table) ?? new Set()
    for (const column of dataset.sortColumns) expect(indexed, `${dataset.table}.${column}`).toContain(column)
    for (const column of dataset.sortColumns) expect(dataset.columns.map((c) => c.name)).toContain(column)
  })

  it('leaves out an index ORDER BY cannot read (text_pattern_ops) and a column without an index', () => {
    expect(indexedColumns().get('gateway_dns')).not.toContain('resolver_decision')
    expect(DATASETS.dns.sortColumns).not.toContain('resolver_decision')
    expect(DATASETS.requests.sortColumns).not.toContain('user_agent')
  })
})

describe('sortOrder', () => {
  it('sorts by time and id by default, newest first', () => {
    const order = sortOrder(DATASETS.requests, undefined)
    expect(order).toMatchObject({ column: 'time', desc: true, byTime: true })
    expect(text(order.sql)).toBe('ORDER BY "time" DESC, "id" DESC')
    expect(text(sortOrder(DATASETS.dns, 'datetime', 'asc').sql)).toBe('ORDER BY "datetime" ASC, "id" ASC')
  })

  it('breaks ties of another column by time and id, in the same direction', () => {
    const order = sortOrder(DATASETS.requests, 'duration_ms', 'desc')
    expect(order).toMatchObject({ column: 'duration_ms', desc: true, byTime: false })
    expect(text(order.sql)).toBe('ORDER BY "duration_ms" DESC, "time" DESC, "id" DESC')
    expect(text(sortOrder(DATASETS.sessions, 'protocol', 'asc').sql)).toBe('ORDER BY "protocol" ASC, "session_start_time" ASC, "id" ASC')
  })

  it.each([['user_agent'], ['time; DROP TABLE request_log'], ['"status"'], ['datetime']])('refuses %j with the sortable columns', (column) => {
    expect(() => sortOrder(DATASETS.requests, column)).toThrow(AppError)
    expect(() => sortOrder(DATASETS.requests, column)).toThrow(/sortable \(indexed\) columns: time, status, duration_ms/)
  })
})

describe('sort in the URL', () => {
  it('reads sort=-column as descending and sort=column as ascending', () => {
    expect(parseViewState({ sort: '-duration_ms' }).state).toMatchObject({ sort: 'duration_ms', desc: true })
    expect(parseViewState({ sort: 'status' }).state).toMatchObject({ sort: 'status', desc: false })
    expect(parseViewState({ sort: 'time' }).state).toMatchObject({ sort: '', desc: false })
    expect(parseViewState({ sort: '-time' }).state).toMatchObject({ sort: '', desc: true })
    expect(parseViewState({ dataset: 'dns', sort: 'datetime' }).state).toMatchObject({ sort: '', desc: false })
  })

  it('falls back to newest first with a sentence for a column it cannot sort by', () => {
    const { state, notices } = parseViewState({ sort: '-user_agent' })
    expect(state).toMatchObject({ sort: '', desc: true })
    expect(notices).toEqual([
      'Rows cannot be sorted by “user_agent” (sortable: time, status, duration_ms, route, client_ip, mcp_tool); showing the newest first.',
    ])
    expect(parseViewState({ dataset: 'dns', sort: 'status' }).notices).toHaveLength(1)
  })

  it('writes only a sort that is not the default, and a sort change drops the cursor and offset', () => {
    const { state } = parseViewState({ sort: '-status', cursor: '2026-01-10T12:00:00.000000Z~5', offset: '100' })
    expect(viewQuery(state)).toBe('dataset=requests&range=24h&offset=100&cursor=2026-01-10T12%3A00%3A00.000000Z%7E5&sort=-status')
    expect(viewHref('/query', state, { sort: 'route', desc: false, offset: 0 })).toBe('/query?dataset=requests&range=24h&sort=route')
    expect(viewQuery(parseViewState({}).state)).toBe('dataset=requests&range=24h')
    expect(sortParam({ dataset: 'dns', sort: '', desc: false })).toBe('datetime')
    expect(sortRequest(parseViewState({ dataset: 'dns' }).state)).toEqual({ sort: 'datetime', order: 'desc' })
    expect(sortRequest(state)).toEqual({ sort: 'status', order: 'desc' })
  })
})

describe('runQuery with a sort', () => {
  let testDatabase: TestDatabase
  let database: Database
  const DAY = '2026-01-10'
  const base = Date.parse(`${DAY}T00:00:00Z`)
  // 230 rows, five minutes apart; durations repeat every 7 rows so ties need the time and id.
  const ROWS = Array.from({ length: 230 }, (_, i) => ({
    time: new Date(base + i * 300_000),
    requestId: `so-${i}`,
    method: 'GET',
    route: `/api/r${i % 5}`,
    status: i % 10 === 0 ? 503 : 200,
    durationMs: (i % 7) + 1,
    clientIp: i % 4 === 0 ? null : `198.51.100.${i % 3}`,
  }))
  const request = { dataset: 'requests' as const, dateFrom: DAY, dateTo: DAY }

  beforeAll(async () => {
    testDatabase = await openTestDatabase('sort')
    database = testDatabase.database
    await database.migrate()
    await database.db.execute(sql`TRUNCATE request_log, request_log_rollup RESTART IDENTITY`)
    await writeRequestLog(database.db, ROWS)
    setDatabase(database)
  }, 60_000)

  afterAll(async () => {
    setDatabase(undefined)
    await testDatabase?.close()
  })

  const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => Number(String(r.request_id).slice(3)))

  it('pages by offset through rows sorted by duration, ties newest first, with no cursor', async () => {
    const pages = await Promise.all([0, 100, 200].map((offset) => runQuery({ ...request, sort: 'duration_ms', order: 'desc', offset })))
    expect(pages.map((p) => [p.rows.length, p.nextCursor, p.sort])).toEqual([
      [100, null, { column: 'duration_ms', order: 'desc' }],
      [100, null, { column: 'duration_ms', order: 'desc' }],
      [30, null, { column: 'duration_ms', order: 'desc' }],
    ])
    const all = ids(pages.flatMap((p) => p.rows))
    const expected = ROWS.map((_, i) => i).sort((a, b) => ROWS[b].durationMs - ROWS[a].durationMs || b - a)
    expect(all).toEqual(expected)
    expect(pages[0].sql.text).toMatch(/ORDER BY "duration_ms" DESC, "time" DESC, "id" DESC LIMIT \$\d+ OFFSET \$\d+$/)
  })

  it('sorts ascending with nulls last, as Postgres does', async () => {
    const page = await runQuery({ ...request, sort: 'client_ip', order: 'asc', limit: 500 })
    const ips = page.rows.map((r) => r.client_ip)
    expect(ips.slice(-58).every((v) => v === null)).toBe(true)
    expect(ips.slice(0, -58)).toEqual([...ips.slice(0, -58)].sort())
    expect(ips.filter((v) => v === null)).toHaveLength(58)
  })

  it('pages by keyset through time in both directions', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const seen: number[] = []
      let cursor: string | undefined
      for (let i = 0; i < 5; i++) {
        const page = await runQuery({ ...request, sort: 'time', order, cursor, offset: seen.length })
        seen.push(...ids(page.rows))
        if (!page.nextCursor) break
        cursor = page.nextCursor
      }
      const all = ROWS.map((_, i) => i)
      expect(seen).toEqual(order === 'asc' ? all : all.reverse())
    }
  })

  it('refuses a column outside the allow-list, and a cursor with a non-time sort', async () => {
    await expect(runQuery({ ...request, sort: 'user_agent' })).rejects.toThrow(/not a sortable column of requests/)
    await expect(runQuery({ ...request, sort: 'status', cursor: '2026-01-10T12:00:00.000000Z~5' })).rejects.toThrow(/page with offset/)
  })
})

describe('snapToBuckets (the histogram drag)', () => {
  const H = 3_600_000
  const range = { from: Date.parse('2026-01-10T00:30:00Z'), to: Date.parse('2026-01-11T00:30:00Z') }
  it('widens a drag to whole buckets and keeps it inside the range', () => {
    expect(snapToBuckets(Date.parse('2026-01-10T05:10:00Z'), Date.parse('2026-01-10T07:40:00Z'), H, range)).toEqual({
      from: Date.parse('2026-01-10T05:00:00Z'),
      to: Date.parse('2026-01-10T08:00:00Z'),
    })
    expect(snapToBuckets(Date.parse('2026-01-09T22:00:00Z'), Date.parse('2026-01-10T01:10:00Z'), H, range)).toEqual({
      from: range.from,
      to: Date.parse('2026-01-10T02:00:00Z'),
    })
    expect(snapToBuckets(Date.parse('2026-01-10T23:10:00Z'), Date.parse('2026-01-11T05:00:00Z'), H, range)).toEqual({
      from: Date.parse('2026-01-10T23:00:00Z'),
      to: range.to,
    })
  })
  it('takes at least one bucket', () => {
    const t = Date.parse('2026-01-10T05:00:00Z')
    expect(snapToBuckets(t, t, H, range)).toEqual({ from: t, to: t + H })
  })
})

import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setDatabase, type Database } from '@/lib/db/client'
import { runContext } from '@/lib/query/context'
import { runQuery } from '@/lib/query/service'
import { writeRequestLog } from '@/lib/request-log/store'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'
import { appError } from '@/test-support/app-error'

// Rows in context against a real database (PGlite by default; Postgres with QUERY_TEST_DATABASE_URL):
// the rows around one row are exactly its neighbours in (time, id) order, computed here from the
// rows this test wrote, with ties in time, a filter, both ends of the table and a missing row.

let testDatabase: TestDatabase
let database: Database

const DAY = '2026-04-02'
const base = Date.parse(`${DAY}T00:00:00Z`)
// 300 rows, three to a second (equal times: the id decides), over two clients.
const ROWS = Array.from({ length: 300 }, (_, i) => ({
  time: new Date(base + Math.floor(i / 3) * 1000),
  requestId: `ctx-${i}`,
  method: 'GET',
  route: `/api/c${i % 5}`,
  status: 200,
  durationMs: 1,
  clientIp: i % 4 === 0 ? '203.0.113.0' : '198.51.100.0',
  country: null,
  userAgent: 'ua',
  apiKeyPresent: false,
  rateLimited: false,
  mcpTool: null,
}))

/** All rows of the day, oldest first, with their keys, as a page reads them. */
async function allRows(filter?: string) {
  const page = await runQuery({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter, limit: 500, order: 'asc' })
  return page.rows.map((r, i) => ({ requestId: r.request_id as string, key: page.keys[i] }))
}

beforeAll(async () => {
  testDatabase = await openTestDatabase('context')
  database = testDatabase.database
  await database.migrate()
  await database.db.execute(sql`TRUNCATE request_log, request_log_rollup RESTART IDENTITY`)
  await writeRequestLog(database.db, ROWS)
  setDatabase(database)
}, 120_000)

afterAll(async () => {
  setDatabase(undefined)
  await testDatabase?.close()
})

describe(`rows in context (${driverName})`, () => {
  it('gives the N newer and N older rows around a row, newest first, the row itself marked', async () => {
    const rows = await allRows()
    expect(rows).toHaveLength(ROWS.length)
    for (const at of [150, 151, 0, 299, 4]) {
      const r = await runContext({ dataset: 'requests', at: rows[at].key, rows: 5 })
      const expected = rows.slice(Math.max(0, at - 5), at + 6).reverse()
      expect(
        r.rows.map((x) => x.request_id),
        `around ${at}`,
      ).toEqual(expected.map((x) => x.requestId))
      expect(r.keys).toEqual(expected.map((x) => x.key))
      expect(r.anchor).toBe(Math.min(5, rows.length - 1 - at))
      expect(r.rows[r.anchor!].request_id).toBe(rows[at].requestId)
      expect([r.newer, r.older]).toEqual([Math.min(5, rows.length - 1 - at), Math.min(5, at)])
      expect(r.sql).toHaveLength(2)
    }
  })

  it('under a filter keeps only the matching neighbours (the same client)', async () => {
    const filter = `"client_ip" = '203.0.113.0'`
    const rows = await allRows(filter)
    expect(rows).toHaveLength(ROWS.filter((x) => x.clientIp === '203.0.113.0').length)
    const at = 30
    const r = await runContext({ dataset: 'requests', at: rows[at].key, filter, rows: 3 })
    expect(r.rows.map((x) => x.request_id)).toEqual(
      rows
        .slice(at - 3, at + 4)
        .reverse()
        .map((x) => x.requestId),
    )
    expect(new Set(r.rows.map((x) => x.client_ip))).toEqual(new Set(['203.0.113.0']))
  })

  it('says when the row itself is not there (filtered out), and refuses a key that is not one', async () => {
    const rows = await allRows()
    const other = await runContext({ dataset: 'requests', at: rows[1].key, filter: `"client_ip" = '203.0.113.0'`, rows: 2 })
    expect(other.anchor).toBeNull()
    expect(other.rows.map((x) => x.request_id)).toEqual(['ctx-8', 'ctx-4', 'ctx-0'])
    expect(await appError(runContext({ dataset: 'requests', at: 'yesterday' }))).toMatchObject({ code: 'invalid_input' })
    expect(await appError(runContext({ dataset: 'requests', at: rows[0].key, rows: 101 }))).toMatchObject({ code: 'invalid_input' })
  })
})

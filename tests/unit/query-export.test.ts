import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { openExport } from '@/lib/query/export'

// The export reads by keyset in batches, each its own short read-only statement, and writes rows
// out as they are read. On PGlite in memory: rows that tie on time (down to the microsecond, which
// a JS Date cannot hold) must each come out exactly once.

let database: Database
const ROWS = 50
const DAY = '2026-01-10'
const SORT_DAY = '2026-01-12'

/** The database with a count of the read-only sessions (one per batch) opened on it. */
function counting(db: Database) {
  const counter = { transactions: 0 }
  const wrapped: Database = { ...db, readOnly: (timeoutMs, fn) => (counter.transactions++, db.readOnly(timeoutMs, fn)) }
  return { database: wrapped, counter }
}

async function collect(chunks: AsyncGenerator<string>) {
  let text = ''
  for await (const c of chunks) text += c
  return text
}

beforeAll(async () => {
  database = await createDatabase({ PGLITE_DIR: 'memory://' })
  await database.migrate()
  // Three distinct instants a microsecond apart, shared by 50 rows, and one row outside the day.
  await database.db.execute(
    sql.raw(`INSERT INTO request_log (time, request_id, method, route, status, duration_ms, user_agent)
      SELECT '${DAY}T10:00:00Z'::timestamptz + (g % 3) * interval '1 microsecond', 'ex-' || g, 'GET', '/r', 200 + g, 1, CASE WHEN g = 1 THEN '@SUM(A1)' ELSE 'Zoë/1.0' END
      FROM generate_series(1, ${ROWS}) g
      UNION ALL SELECT '2026-01-11T00:00:00Z', 'ex-next-day', 'GET', '/r', 200, 1, NULL`),
  )
  // A day for the sorted export: statuses and routes that tie, durations with fractions, addresses
  // and tools that are often null, times that tie to the microsecond.
  await database.db.execute(
    sql.raw(`INSERT INTO request_log (time, request_id, method, client_ip, route, status, duration_ms, mcp_tool)
      SELECT '${SORT_DAY}T10:00:00Z'::timestamptz + (g % 5) * interval '1 microsecond', 'so-' || g, 'GET',
        CASE WHEN g % 4 = 0 THEN NULL ELSE ('10.0.' || (g % 3) || '.0')::inet END, '/r' || (g % 3), 200 + (g % 4) * 100, (g % 7) * 0.1 + 0.05,
        CASE WHEN g % 3 = 0 THEN NULL ELSE 'tool-' || (g % 2) END
      FROM generate_series(1, ${ROWS}) g`),
  )
}, 60_000)

afterAll(async () => {
  await database?.close()
})

describe('openExport', () => {
  it('reads batch by batch, only as the output is consumed, every row once, newest first', async () => {
    const { database: counted, counter } = counting(database)
    const opened = await openExport(
      { dataset: 'requests', dateFrom: DAY, dateTo: DAY, format: 'ndjson', columns: ['time', 'request_id'] },
      { database: counted, batchSize: 7 },
    )
    expect(counter.transactions).toBe(1) // the first batch, read before answering
    const first = await opened.chunks.next()
    expect(first.value!.trim().split('\n')).toHaveLength(7)
    expect(counter.transactions).toBe(1)
    const rest = await collect(opened.chunks)
    expect(counter.transactions).toBe(Math.ceil(ROWS / 7))
    const rows = `${first.value}${rest}`
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows).toHaveLength(ROWS)
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(ROWS)
    expect(Object.keys(rows[0])).toEqual(['time', 'request_id'])
    // Newest first, then by id: g % 3 = 2 rows first, highest g first.
    expect(rows[0].request_id).toBe('ex-50')
    expect(rows.at(-1).request_id).toBe('ex-3')
  })

  it('stops at the row cap', async () => {
    const opened = await openExport({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, format: 'ndjson' }, { database, batchSize: 4, maxRows: 10 })
    expect((await collect(opened.chunks)).trim().split('\n')).toHaveLength(10)
    expect(opened.maxRows).toBe(10)
  })

  it('writes CSV with a byte-order mark, the header once and formulas defused', async () => {
    const opened = await openExport(
      { dataset: 'requests', dateFrom: DAY, dateTo: DAY, format: 'csv', columns: ['request_id', 'user_agent'], filter: 'status < 203' },
      { database, batchSize: 1 },
    )
    expect(await collect(opened.chunks)).toBe(`\uFEFFrequest_id,user_agent\nex-2,Zoë/1.0\nex-1,'@SUM(A1)\n`)
  })

  it('writes only the header when nothing matches', async () => {
    const opened = await openExport({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, format: 'csv', columns: ['status'], filter: 'status = 1' }, { database })
    expect(await collect(opened.chunks)).toBe('\uFEFFstatus\n')
  })

  it.each([
    ['status', 'asc'],
    ['status', 'desc'],
    ['duration_ms', 'asc'],
    ['route', 'desc'],
    ['client_ip', 'asc'],
    ['client_ip', 'desc'],
    ['mcp_tool', 'desc'],
    ['mcp_tool', 'asc'],
    ['time', 'asc'],
  ] as const)('follows the page’s sort by %s %s across batches, nulls and ties included, every row once', async (column, order) => {
    const opened = await openExport(
      { dataset: 'requests', dateFrom: SORT_DAY, dateTo: SORT_DAY, format: 'ndjson', columns: ['request_id'] },
      { database, batchSize: 3, sort: { sort: column, order } },
    )
    const got = (await collect(opened.chunks))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).request_id)
    const dir = order.toUpperCase()
    const keys = column === 'time' ? `time ${dir}, id ${dir}` : `${column} ${dir}, time ${dir}, id ${dir}`
    const expected = (await database.db.execute(
      sql.raw(`SELECT request_id FROM request_log WHERE time >= '${SORT_DAY}' AND time < '${SORT_DAY}'::date + 1 ORDER BY ${keys}`),
    )) as unknown as { rows: { request_id: string }[] }
    expect(got).toHaveLength(ROWS)
    expect(got).toEqual(expected.rows.map((r) => r.request_id))
  })

  it.each([
    [{ columns: ['status', 'secret'] }, 'Unknown column secret in dataset requests.'],
    [{ filter: 'pg_sleep(1) IS NULL' }, 'pg_sleep'],
    [{ format: 'xlsx' }, 'format'],
  ])('refuses %j before reading anything', async (change, message) => {
    const error = await openExport({ dataset: 'requests', dateFrom: DAY, dateTo: DAY, ...change } as never, { database }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).message).toContain(message)
  })
})

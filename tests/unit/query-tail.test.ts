import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { setDatabase, type Database } from '@/lib/db/client'
import { writeRequestLog } from '@/lib/request-log/store'
import { TAIL_BACKFILL_MS, TAIL_LATE_MS, runTail } from '@/lib/query/tail'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'
import { appError } from '@/test-support/app-error'

// The live tail's API against a real database (PGlite by default; Postgres with
// QUERY_TEST_DATABASE_URL): rows come back in the order they were written, only once, bounded by
// the limit with the rest counted, and rows written late (with an older time) still show.

let testDatabase: TestDatabase
let database: Database

const NOW = Date.parse('2026-03-10T12:00:00Z')
const MINUTE = 60_000
let serial = 0
const row = (time: number, over: Partial<{ route: string; status: number }> = {}) => ({
  time: new Date(time),
  requestId: `tail-${serial++}`,
  method: 'GET',
  route: over.route ?? '/api/health',
  status: over.status ?? 200,
  durationMs: 1.5,
  clientIp: '198.51.100.7',
  country: null,
  userAgent: 'tail-test',
  apiKeyPresent: false,
  rateLimited: false,
  mcpTool: null,
})
const write = (rows: ReturnType<typeof row>[]) => writeRequestLog(database.db, rows)
const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.request_id)
const written = (rows: Array<ReturnType<typeof row>>) => rows.map((r) => r.requestId)

beforeAll(async () => {
  testDatabase = await openTestDatabase('tail')
  database = testDatabase.database
  await database.migrate()
  setDatabase(database)
}, 120_000)

beforeEach(async () => {
  await database.db.execute(sql`TRUNCATE request_log, request_log_rollup RESTART IDENTITY`)
})

afterAll(async () => {
  setDatabase(undefined)
  await testDatabase?.close()
})

describe(`live tail (${driverName})`, () => {
  it('starts with the newest rows of the last hour, oldest first, and then returns only the rows written after its cursor', async () => {
    const old = row(NOW - TAIL_BACKFILL_MS - MINUTE)
    const recent = Array.from({ length: 5 }, (_, i) => row(NOW - (50 - i * 10) * MINUTE))
    await write([old, ...recent])
    const first = await runTail({ dataset: 'requests', limit: 3 }, { now: new Date(NOW) })
    expect(ids(first.rows)).toEqual(written(recent.slice(-3)))
    expect(first.skipped).toBe(0)
    expect(first.columns).toContain('request_id')

    const again = await runTail({ dataset: 'requests', since: first.cursor }, { now: new Date(NOW + 2000) })
    expect(again.rows).toEqual([])
    expect(again.skipped).toBe(0)

    // Written after the first answer: one a little older than it (a batch that arrived late), one
    // newer, and one older than the late allowance (not tailed; the rows page has it).
    const late = row(NOW - TAIL_LATE_MS + MINUTE)
    const fresh = row(NOW + 1000)
    const tooLate = row(NOW - TAIL_LATE_MS - MINUTE)
    await write([late])
    await write([fresh, tooLate])
    const next = await runTail({ dataset: 'requests', since: again.cursor }, { now: new Date(NOW + 4000) })
    expect(ids(next.rows)).toEqual(written([late, fresh]))
    // Each row once: the cursor has moved past them.
    const after = await runTail({ dataset: 'requests', since: next.cursor }, { now: new Date(NOW + 6000) })
    expect(after.rows).toEqual([])
  })

  it('returns at most the limit, the newest, and counts the rows it left out', async () => {
    const start = await runTail({ dataset: 'requests' }, { now: new Date(NOW) })
    expect(start.rows).toEqual([])
    const burst = Array.from({ length: 250 }, (_, i) => row(NOW + i))
    await write(burst.slice(0, 120))
    await write(burst.slice(120))
    const r = await runTail({ dataset: 'requests', since: start.cursor, limit: 100 }, { now: new Date(NOW + 1000) })
    expect(ids(r.rows)).toEqual(written(burst.slice(150)))
    expect(r.skipped).toBe(150)
    const next = await runTail({ dataset: 'requests', since: r.cursor, limit: 100 }, { now: new Date(NOW + 2000) })
    expect(next.rows).toEqual([])
    expect(next.skipped).toBe(0)
  })

  it('applies the filter to the rows and the skipped count, and moves past the rows it does not match', async () => {
    const start = await runTail({ dataset: 'requests', filter: 'status >= 500' }, { now: new Date(NOW) })
    const mixed = Array.from({ length: 30 }, (_, i) => row(NOW + i, { status: i % 3 === 0 ? 503 : 200 }))
    await write(mixed)
    const r = await runTail({ dataset: 'requests', filter: 'status >= 500', since: start.cursor, limit: 4 }, { now: new Date(NOW + 1000) })
    const errors = mixed.filter((m) => m.status >= 500)
    expect(ids(r.rows)).toEqual(written(errors.slice(-4)))
    expect(r.skipped).toBe(errors.length - 4)
    expect(r.filter).toBe('status >= 500')
    // The unmatched rows are behind the cursor too: without the filter nothing of them comes back.
    const unfiltered = await runTail({ dataset: 'requests', since: r.cursor }, { now: new Date(NOW + 2000) })
    expect(unfiltered.rows).toEqual([])
  })

  it('after a long pause resumes with the last hour, not everything since', async () => {
    const start = await runTail({ dataset: 'requests' }, { now: new Date(NOW) })
    const during = [row(NOW + 10 * MINUTE), row(NOW + 3 * 60 * MINUTE)]
    await write(during)
    const resumed = await runTail({ dataset: 'requests', since: start.cursor }, { now: new Date(NOW + 3 * 60 * MINUTE + 1000) })
    expect(ids(resumed.rows)).toEqual(written(during.slice(1)))
  })

  it('rejects a cursor it did not give and a filter it cannot run, with a sentence', async () => {
    const cursor = await appError(runTail({ dataset: 'requests', since: '12345' }))
    expect(cursor.code).toBe('invalid_input')
    expect(cursor.message).toContain('since')
    const filter = await appError(runTail({ dataset: 'requests', filter: 'nonsense_column = 1' }))
    expect(filter.code).toBe('invalid_input')
    expect(filter.message).toContain('nonsense_column')
    const limit = await appError(runTail({ dataset: 'requests', limit: 201 }))
    expect(limit.code).toBe('invalid_input')
  })
})

import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { ingestBatch } from '@/lib/ingest/logpush'
import { dropExpiredPartitions, maintainPartitions, runPartitionMaintenance } from '@/lib/datasets/partitions'
import { PARTITION_DAYS_AHEAD } from '@/lib/datasets/storage/partitions'
import { writeRequestLog } from '@/lib/request-log/store'
import { readOnly, runDashboard, runQuery } from '@/lib/query/service'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Day partitions: created ahead, the default partition drained, retention by dropping whole days
// (lib/datasets/storage/partitions.ts), on each driver. "Now" is passed in, so the days are fixed.

let testDatabase: TestDatabase
let database: Database

const entry = (requestId: string, time: string, status = 200) => ({
  time: new Date(time),
  requestId,
  method: 'GET',
  route: '/api/p',
  status,
  durationMs: 2,
  clientIp: null,
})
const q = async (query: ReturnType<typeof sql>) => (await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }
const partitionsOf = async (parent: string) =>
  (await q(sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ${parent}::regclass ORDER BY 1`)).rows.map(
    (r) => String(r.name),
  )
const countIn = async (table: string) => Number((await q(sql`SELECT count(*) AS n FROM ${sql.identifier(table)}`)).rows[0].n)

beforeAll(async () => {
  testDatabase = await openTestDatabase('partitions', { fresh: true })
  database = testDatabase.database
  await database.migrate()
}, 120_000)

afterAll(async () => {
  await testDatabase?.close()
})

describe(`day partitions (${driverName})`, { timeout: 60_000 }, () => {
  it('takes rows for a day without a partition into the default partition, then drains it into that day', async () => {
    const rows = Array.from({ length: 30 }, (_, i) =>
      entry(`stranded-${i}`, `2026-03-01T${String(10 + (i % 5)).padStart(2, '0')}:0${i % 10}:00Z`, i % 3 ? 200 : 503),
    )
    expect(await writeRequestLog(database.db, rows)).toBe(30)
    expect(await countIn('request_log_default')).toBe(30)
    const before = await runDashboard({ dataset: 'requests', dateFrom: '2026-03-01', dateTo: '2026-03-01' }, { database })

    const result = await maintainPartitions(database.db, { now: new Date('2026-03-02T10:00:00Z') })
    const days = ['20260301', '20260302', '20260303', '20260304', '20260305']
    expect(days.length).toBe(PARTITION_DAYS_AHEAD + 2) // the stranded day, today and the days ahead
    for (const parent of ['request_log', 'request_log_rollup', 'gateway_dns', 'gateway_sessions_rollup'])
      expect(result.created).toEqual(
        expect.arrayContaining(days.filter((d) => parent.startsWith('request_log') || d !== '20260301').map((d) => `${parent}_p${d}`)),
      )
    expect(result.drained).toBeGreaterThanOrEqual(30) // the rows, and their rollup rows
    expect(await countIn('request_log_default')).toBe(0)
    expect(await countIn('request_log_rollup_default')).toBe(0)
    expect(await countIn('request_log_p20260301')).toBe(30)
    expect(await partitionsOf('request_log')).toEqual(['request_log_default', ...days.map((d) => `request_log_p${d}`)])

    // Nothing lost or counted twice: the same answers, rows and rollup alike.
    const after = await runDashboard({ dataset: 'requests', dateFrom: '2026-03-01', dateTo: '2026-03-01' }, { database })
    expect(after.panels).toEqual(before.panels)
    expect(
      (await runQuery({ dataset: 'requests', dateFrom: '2026-03-01', dateTo: '2026-03-01', filter: "route = '/api/p' AND status = 503" }, { database })).count,
    ).toBe(10)

    // A second run has nothing to do.
    expect(await maintainPartitions(database.db, { now: new Date('2026-03-02T11:00:00Z') })).toEqual({ created: [], drained: 0 })
  })

  it('writes into the new partitions, and query_ro reads them through the parent but cannot write', async () => {
    await writeRequestLog(database.db, [entry('in-partition', '2026-03-03T08:00:00Z')])
    expect(await countIn('request_log_p20260303')).toBe(1)
    const rows = await readOnly({ database }, (session) =>
      session.execute(sql`SELECT count(*) AS n FROM request_log WHERE time >= '2026-03-03' AND time < '2026-03-04'`),
    )
    expect(Number(rows[0].n)).toBe(1)
    for (const statement of [
      sql`INSERT INTO request_log (time, request_id, method, route, status, duration_ms) VALUES ('2026-03-03T09:00:00Z', 'x', 'GET', '/', 200, 1)`,
      sql`SELECT count(*) FROM request_log_p20260303`,
    ]) {
      const error = await readOnly({ database }, (session) => session.execute(statement)).then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(AppError)
      expect((error as AppError).code).toBe('forbidden')
    }
  })

  it('drops whole day partitions past the retention, rows and rollup together, and keeps the rest', async () => {
    await writeRequestLog(database.db, [entry('kept', '2026-05-20T12:00:00Z'), entry('kept-2', '2026-05-20T12:01:00Z')])
    await ingestBatch('dns', JSON.stringify({ Datetime: '2026-05-01T00:00:00Z', QueryName: 'old.example' }), { db: database.db })
    await ingestBatch('dns', JSON.stringify({ Datetime: '2026-05-20T00:00:00Z', QueryName: 'new.example' }), { db: database.db })
    const now = new Date('2026-06-05T00:00:00Z')
    await maintainPartitions(database.db, { now: new Date('2026-05-20T00:00:00Z') }) // the May days get partitions
    // requests keep 90 days (from 2026-03-07 on): March 1–5 go, May 20 stays. Gateway datasets keep
    // 30 days (from 2026-05-06 on): May 1 goes.
    const dropped = await dropExpiredPartitions(database.db, { now })
    expect(dropped).toEqual(
      expect.arrayContaining([
        'request_log_p20260301',
        'request_log_rollup_p20260301',
        'request_log_p20260305',
        'gateway_dns_p20260501',
        'gateway_dns_rollup_p20260501',
      ]),
    )
    expect(dropped).not.toContain('request_log_p20260520')
    expect(dropped).not.toContain('gateway_dns_p20260520')
    expect(await partitionsOf('request_log')).not.toContain('request_log_p20260301')
    const count = async (dataset: 'requests' | 'dns', day: string) => (await runQuery({ dataset, dateFrom: day, dateTo: day }, { database })).count
    expect(await count('requests', '2026-03-01')).toBe(0)
    expect(await count('requests', '2026-05-20')).toBe(2)
    expect(await count('dns', '2026-05-01')).toBe(0)
    expect(await count('dns', '2026-05-20')).toBe(1)
    expect(Number((await q(sql`SELECT count(*) AS n FROM request_log_rollup WHERE bucket < '2026-03-07'`)).rows[0].n)).toBe(0)
    // Nothing further to drop.
    expect((await runPartitionMaintenance(database.db, { now })).dropped).toEqual([])
  })
})

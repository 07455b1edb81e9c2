import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gatewayDns } from '@/lib/datasets/dns/tables'
import type { Database } from '@/lib/db/client'
import { bulkInsertWithRollup, bulkPathOf } from '@/lib/datasets/storage/bulk-insert'
import { store as dns } from '@/lib/datasets/dns/store'
import { DATASETS } from '@/lib/datasets/catalog'
import { ingestBatch, parseBatch } from '@/lib/ingest/logpush'
import { maintainPartitions } from '@/lib/datasets/partitions'
import { writeRequestLog } from '@/lib/request-log/store'
import { insertWithRollup } from '@/lib/datasets/storage/rollups'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// The staging path (rows COPY'd into a temporary table, then one INSERT … SELECT with the rollup)
// must store and count exactly what the row-by-row JSON statement does: the same rows, the same
// rollup rows, duplicates skipped. The same batch goes through both paths on two different days
// and the days are compared.

const DAY_A = '2026-06-10'
const DAY_B = '2026-06-11' // the JSON path's copy of the same rows, one day later
const DAY_MS = 86_400_000

let testDatabase: TestDatabase
let database: Database

/** Lines with what COPY's text format must escape: tabs, newlines, backslashes, \N itself, quotes, non-ASCII. */
function lines(day: string, n: number): string[] {
  const awkward = ['tab\there', 'new\nline', 'back\\slash', '\\N', 'carriage\rreturn', 'it\'s "quoted"', 'café ☕ 日本', '', ' ']
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      Datetime: new Date(Date.parse(`${day}T10:00:00Z`) + i * 1500).toISOString(),
      QueryID: `bulk-${i}`,
      QueryName: `${awkward[i % awkward.length]}.example`,
      QueryCategoryNames: i % 4 === 0 ? ['Technology', 'Busi\tness'] : [],
      ResolvedIPs: i % 3 === 0 ? ['192.0.2.1', '2001:db8::1'] : null,
      ResolverDecision: i % 5 === 0 ? 'blockedByCategory' : 'allowedOnNoPolicyMatch',
      RCode: i % 7,
      ResponseTimeMs: i % 11 === 0 ? null : i,
      SrcIP: i % 2 ? `192.0.2.${i % 250}` : '2001:DB8:0:0::7',
      Email: i % 6 === 0 ? null : `user${i % 9}@example.com`,
      Location: awkward[(i + 3) % awkward.length],
    }),
  )
}

const rowsOf = async (day: string): Promise<Array<Record<string, unknown>>> =>
  (
    (await database.db.execute(
      sql`SELECT * FROM gateway_dns WHERE datetime >= ${`${day}T00:00:00Z`}::timestamptz AND datetime < ${`${day}T00:00:00Z`}::timestamptz + interval '1 day' ORDER BY query_id`,
    )) as unknown as {
      rows: Array<Record<string, unknown>>
    }
  ).rows.map(({ id: _id, row_hash: _hash, datetime, ...rest }) => ({
    ...rest,
    offset: (datetime instanceof Date ? datetime : new Date(String(datetime))).getTime() % DAY_MS,
  }))

const rollupOf = async (day: string) =>
  (
    (await database.db.execute(
      sql`SELECT * FROM gateway_dns_rollup WHERE bucket >= ${`${day}T00:00:00Z`}::timestamptz AND bucket < ${`${day}T00:00:00Z`}::timestamptz + interval '1 day'`,
    )) as unknown as { rows: Array<Record<string, unknown>> }
  ).rows
    .map(({ bucket, ...rest }) =>
      JSON.stringify({ ...rest, rows: Number(rest.rows), offset: (bucket instanceof Date ? bucket : new Date(String(bucket))).getTime() % DAY_MS }),
    )
    .sort()

beforeAll(async () => {
  testDatabase = await openTestDatabase('bulk', { fresh: true })
  database = testDatabase.database
  await database.migrate()
}, 60_000)

afterAll(async () => {
  await testDatabase?.close()
})

describe(`bulk insert through a staging table (${driverName})`, { timeout: 60_000 }, () => {
  it('copies where the driver can, and says so', async () => {
    const expected = { pglite: 'copy-blob', postgres: 'copy-stdin', neon: 'json' }[driverName]
    expect(await database.db.transaction(async (tx) => bulkPathOf(tx))).toBe(expected)
  })

  it('stores the same rows and rollup as the JSON statement, and skips duplicates', async () => {
    // Day A through ingest (the staging path where the driver copies); no day partition exists,
    // so the rows land in the default partition, as a plain INSERT's would.
    const batch = lines(DAY_A, 600)
    const first = await ingestBatch('dns', [...batch, batch[0], batch[1]].join('\n'), { db: database.db })
    expect(first).toMatchObject({ lines: 602, inserted: 600, duplicates: 2, malformed: 0 })
    // Day B: the same rows, shifted by a day, through the JSON statement.
    const parsed = parseBatch(DATASETS.dns, gatewayDns, lines(DAY_B, 600).join('\n')).rows
    const viaJson = await database.db.transaction((tx) => insertWithRollup(tx, dns, parsed))
    expect(viaJson).toBe(600)

    const [rowsA, rowsB] = [await rowsOf(DAY_A), await rowsOf(DAY_B)]
    expect(rowsA).toHaveLength(600)
    expect(rowsA).toEqual(rowsB)
    expect(rowsA.find((r) => r.query_id === 'bulk-0')).toMatchObject({ query_name: 'tab\there.example', location: '\\N' })
    const [rollupA, rollupB] = [await rollupOf(DAY_A), await rollupOf(DAY_B)]
    expect(rollupA.length).toBeGreaterThan(0)
    expect(rollupA).toEqual(rollupB)

    // A re-delivery stores and counts nothing.
    const again = await ingestBatch('dns', batch.join('\n'), { db: database.db })
    expect(again).toMatchObject({ inserted: 0, duplicates: 600 })
    expect(await rollupOf(DAY_A)).toEqual(rollupA)

    // Draining the default partition into the new day keeps rows and rollup as they were.
    const drained = await maintainPartitions(database.db, { now: new Date(`${DAY_A}T00:00:00Z`), daysAhead: 1 })
    expect(drained.drained).toBeGreaterThanOrEqual(1200)
    expect(await rowsOf(DAY_A)).toEqual(rowsB)
    expect(await rollupOf(DAY_A)).toEqual(rollupB)
  })

  it('runs twice in one transaction and rolls back with it', async () => {
    const rows = parseBatch(DATASETS.dns, gatewayDns, lines('2026-06-12', 50).join('\n')).rows
    await expect(
      database.db.transaction(async (tx) => {
        expect(await bulkInsertWithRollup(tx, dns, rows.slice(0, 30))).toBe(30)
        expect(await bulkInsertWithRollup(tx, dns, rows)).toBe(20)
        throw new Error('abandoned')
      }),
    ).rejects.toThrow('abandoned')
    expect(await rowsOf('2026-06-12')).toEqual([])
    expect(await rollupOf('2026-06-12')).toEqual([])
  })

  it('writes request-log rows with any text exactly as given', async () => {
    const texts = ['a\tb', 'line\nbreak', 'back\\slash', '\\N', 'carriage\rreturn', 'emoji 🙂', '']
    const rows = texts.map((text, i) => ({
      time: new Date(Date.parse('2026-06-13T08:00:00Z') + i * 1000),
      requestId: `bulk-req-${i}`,
      method: 'GET',
      route: `/api/${text}`,
      query: text,
      status: 200 + i,
      durationMs: i + 0.25,
      clientIp: i % 2 ? '203.0.113.0' : null,
      country: null,
      userAgent: text,
      referrer: i % 2 ? null : text,
      apiKeyPresent: i % 2 === 0,
      rateLimited: false,
      mcpTool: null,
    }))
    expect(await writeRequestLog(database.db, rows)).toBe(texts.length)
    expect(await writeRequestLog(database.db, rows)).toBe(0)
    const stored = (
      (await database.db.execute(
        sql`SELECT request_id, route, query, user_agent, referrer, duration_ms, api_key_present, client_ip FROM request_log WHERE request_id LIKE 'bulk-req-%' ORDER BY time`,
      )) as unknown as {
        rows: Array<Record<string, unknown>>
      }
    ).rows
    expect(stored).toEqual(
      rows.map((r) => ({
        request_id: r.requestId,
        route: r.route,
        query: r.query,
        user_agent: r.userAgent,
        referrer: r.referrer,
        duration_ms: r.durationMs,
        api_key_present: r.apiKeyPresent,
        client_ip: r.clientIp,
      })),
    )
  })
})

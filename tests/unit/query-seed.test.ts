import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '@/lib/db/client'
import { DATASET_IDS, DATASETS } from '@/lib/datasets/catalog'
import { writeRequestLog } from '@/lib/request-log/store'
import { rebuildRollup } from '@/lib/datasets/storage/rollups'
import { seed } from '@/lib/datasets/seed'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Demo seeding builds each day as a plain table and attaches it as the day's partition (indexes
// built then, rollup computed in SQL). It must leave what row-by-row inserts would: the asked
// number of rows in the range, every partition with the parent's indexes, a rollup equal to one
// rebuilt from the rows, and real rows untouched.

let testDatabase: TestDatabase
let database: Database
const rows = async (text: string) => ((await database.db.execute(sql.raw(text))) as unknown as { rows: Array<Record<string, unknown>> }).rows
const one = async (text: string) => Number(Object.values((await rows(text))[0])[0])

/** The rollup as sorted JSON lines, to compare with a rebuilt one. */
const rollupOf = async (table: string) =>
  (await rows(`SELECT * FROM ${table}_rollup`)).map((r) => JSON.stringify({ ...r, bucket: String(r.bucket), rows: Number(r.rows) })).sort()

beforeAll(async () => {
  testDatabase = await openTestDatabase('seed', { fresh: true })
  database = testDatabase.database
  await database.migrate()
}, 60_000)

afterAll(async () => {
  await testDatabase?.close()
})

describe(`seeding by day partitions (${driverName})`, { timeout: 120_000 }, () => {
  it('seeds every dataset with its rows, indexes and rollup, and keeps real rows on reseeding', async () => {
    const real = {
      time: new Date(Date.now() - 86_400_000),
      requestId: 'seed-real',
      method: 'GET',
      route: '/api/real',
      query: '',
      status: 200,
      durationMs: 2,
      clientIp: null,
      country: null,
      userAgent: null,
      referrer: null,
      apiKeyPresent: false,
      rateLimited: false,
      mcpTool: null,
    }
    expect(await writeRequestLog(database.db, [real])).toBe(1)
    const t0 = Date.now()
    await seed(database.db, { rows: 3000, days: 3 })
    for (const id of DATASET_IDS) {
      const { table, timeColumn } = DATASETS[id]
      expect(await one(`SELECT count(*) FROM ${table} WHERE demo`), id).toBe(3000)
      expect(
        await one(
          `SELECT count(*) FROM ${table} WHERE demo AND (${timeColumn} < to_timestamp(${t0 / 1000}) - interval '3 days 1 minute' OR ${timeColumn} > now())`,
        ),
        id,
      ).toBe(0)
      expect(await one(`SELECT count(DISTINCT id) FROM ${table}`), id).toBe(await one(`SELECT count(*) FROM ${table}`))
      expect(await one(`SELECT count(*) FROM ${table}_default`), id).toBe(0)
      // Each day's partition has every index of the parent.
      const parentIndexes = await one(`SELECT count(*) FROM pg_indexes WHERE tablename = '${table}'`)
      const partitions = await rows(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '${table}'::regclass AND c.relname <> '${table}_default'`,
      )
      expect(partitions.length, id).toBeGreaterThanOrEqual(4)
      for (const p of partitions)
        expect(await one(`SELECT count(*) FROM pg_indexes WHERE tablename = '${String(p.name)}'`), `${id} ${String(p.name)}`).toBe(parentIndexes)
      // The rollup equals one rebuilt from the rows.
      const seeded = await rollupOf(table)
      expect(seeded.length, id).toBeGreaterThan(0)
      await rebuildRollup(database.db, DATASETS[id])
      expect(await rollupOf(table), id).toEqual(seeded)
    }
    expect(await one("SELECT count(*) FROM request_log WHERE request_id = 'seed-real'")).toBe(1)

    // Reseeding replaces the demo rows, keeps the real one, and new writes still land.
    await seed(database.db, { rows: 500, days: 3, datasets: ['requests'] })
    expect(await one('SELECT count(*) FROM request_log WHERE demo')).toBe(500)
    expect(await one("SELECT count(*) FROM request_log WHERE request_id = 'seed-real'")).toBe(1)
    expect(await writeRequestLog(database.db, [{ ...real, requestId: 'seed-after', time: new Date() }])).toBe(1)
    const seeded = await rollupOf('request_log')
    await rebuildRollup(database.db, DATASETS.requests)
    expect(await rollupOf('request_log')).toEqual(seeded)
  })
})

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS_FOLDER, type Database } from '@/lib/db/client'
import { DATASETS } from '@/lib/datasets/catalog'
import { rebuildRollup } from '@/lib/datasets/storage/rollups'
import { runDashboard, runQuery } from '@/lib/query/service'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Migration 0009: alerts rows written before it copied a private saved view's name and filter
// (name, summary, and the rollup's counts by name). After it, every row is still there and
// readable, a condition's row names its view by id only, and the rollup agrees with the rows.

let testDatabase: TestDatabase
let database: Database
const oldFolder = mkdtempSync(path.join(tmpdir(), 'qd-alerts-migrations-'))
const q = async (query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows

const SECRET_NAME = 'Payroll export by Ana'
const SECRET_FILTER = "route = '/api/payroll/ana'"
const range = { dataset: 'alerts' as const, dateFrom: '2026-03-01T00:00:00.000Z', dateTo: '2026-03-02T00:00:00.000Z' }

beforeAll(async () => {
  // The migrations up to 0008 (alerts as they were) with their journal.
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'))
  const upTo = journal.entries.findIndex((e: { tag: string }) => e.tag === '0008_alerts') + 1
  for (const entry of journal.entries.slice(0, upTo)) cpSync(path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), path.join(oldFolder, `${entry.tag}.sql`))
  cpSync(path.join(MIGRATIONS_FOLDER, 'meta'), path.join(oldFolder, 'meta'), { recursive: true })
  writeFileSync(path.join(oldFolder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, upTo) }))
  testDatabase = await openTestDatabase('alerts_migration', { fresh: true })
  database = testDatabase.database
  await database.migrate(oldFolder)
}, 120_000)

afterAll(async () => {
  await testDatabase?.close()
  rmSync(oldFolder, { recursive: true, force: true })
})

describe(`migration 0009: alerts keep a saved view's id, not its name and filter (${driverName})`, { timeout: 120_000 }, () => {
  it('rewrites the old condition rows and the rollup, keeps every row and the posture rows as they were', async () => {
    await database.db
      .execute(sql`INSERT INTO alerts (at, kind, event, alert_key, name, dataset, metric, op, threshold, value, window_minutes, summary, delivery)
      VALUES
        ('2026-03-01T10:00:00Z', 'condition', 'fired', 'view:v-123', ${SECRET_NAME}, 'requests', 'count', 'above', 10, 42, 15,
          ${`“${SECRET_NAME}” is firing: row count 42 rows is above 10 rows over the last 15 min (Requests, filter ${SECRET_FILTER}).`}, 'delivered'),
        ('2026-03-01T10:20:00Z', 'condition', 'resolved', 'view:v-123', ${SECRET_NAME}, 'requests', 'count', 'above', 10, 3, 15,
          ${`“${SECRET_NAME}” resolved: row count 3 rows is no longer above 10 rows over the last 15 min (Requests, filter ${SECRET_FILTER}).`}, 'delivered'),
        ('2026-03-01T11:00:00Z', 'posture', 'changed', 'posture:example.com', 'example.com', 'domain_checks', NULL, NULL, NULL, NULL, NULL,
          'example.com: mail and DNS posture changed: grade B → A.', 'delivered')`)
    await rebuildRollup(database.db, DATASETS.alerts)
    const [before] = await q(sql`SELECT count(*)::int AS n FROM alerts`)
    const rollupBefore = await q(sql`SELECT grain, sum("rows")::int AS n FROM alerts_rollup WHERE dimension = 'name' GROUP BY 1 ORDER BY 1`)
    expect(rollupBefore.length).toBeGreaterThan(0)

    await database.migrate()

    expect((await q(sql`SELECT count(*)::int AS n FROM alerts`))[0]).toEqual(before)
    const rows = await q(sql`SELECT kind, event, alert_key, view_id, name, summary FROM alerts ORDER BY at`)
    expect(rows).toEqual([
      {
        kind: 'condition',
        event: 'fired',
        alert_key: 'view:v-123',
        view_id: 'v-123',
        name: null,
        summary: 'Saved view v-123 fired: count 42, above 10 over the last 15 min (requests).',
      },
      {
        kind: 'condition',
        event: 'resolved',
        alert_key: 'view:v-123',
        view_id: 'v-123',
        name: null,
        summary: 'Saved view v-123 resolved: count 3, above 10 over the last 15 min (requests).',
      },
      {
        kind: 'posture',
        event: 'changed',
        alert_key: 'posture:example.com',
        view_id: null,
        name: 'example.com',
        summary: 'example.com: mail and DNS posture changed: grade B → A.',
      },
    ])
    // Nothing of the view's name or filter is left, in the rows or in the rollup.
    const everything = JSON.stringify([await q(sql`SELECT * FROM alerts`), await q(sql`SELECT * FROM alerts_rollup`)])
    expect(everything).not.toContain('Payroll')
    expect(everything).not.toContain('/api/payroll')
    // The counts by name moved to the empty name: same totals, and the rollup answers as the rows do.
    expect(await q(sql`SELECT grain, sum("rows")::int AS n FROM alerts_rollup WHERE dimension = 'name' GROUP BY 1 ORDER BY 1`)).toEqual(rollupBefore)
    const fromRollup = await runDashboard(range, { database })
    const fromRows = await runDashboard(range, { database, rollups: false })
    const data = (panels: typeof fromRows.panels) => panels.map(({ sql: _sql, source: _source, ...rest }) => rest)
    expect(fromRollup.panels.every((p) => p.source === 'rollup')).toBe(true)
    expect(data(fromRollup.panels)).toEqual(data(fromRows.panels))
    // Still readable as a dataset, by the new column too.
    expect((await runQuery({ ...range, filter: "view_id = 'v-123'" }, { database })).count).toBe(2)
    expect((await runQuery({ ...range, filter: 'name IS NULL' }, { database })).count).toBe(2)
  })
})

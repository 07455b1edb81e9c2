import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATIONS_FOLDER, type Database } from '@/lib/db/client'
import { DATASET_IDS, DATASETS } from '@/lib/datasets/catalog'
import { readOnly, runDashboard } from '@/lib/query/service'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Migration 0002 takes a database with the unpartitioned tables of 0000/0001 and existing rows to
// day partitions and rollups without losing a row: the old schema is filled, migrated, and every
// table's row count and checksum (md5 over every row's text, in id order) compared.

const OLD_TABLE_SET = { request_log: 1, gateway_dns: 1, gateway_http: 1, gateway_network: 1, gateway_sessions: 1 }
let testDatabase: TestDatabase
let database: Database
const oldFolder = mkdtempSync(path.join(tmpdir(), 'qd-migrations-'))

const q = async (query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows
// The datasets of the old schema (later migrations add job_runs and domain_checks, born partitioned).
const OLD_DATASETS = DATASET_IDS.filter((id) => DATASETS[id].table in OLD_TABLE_SET)
const TABLES = OLD_DATASETS.map((id) => DATASETS[id].table)

/** Row count and checksum of a table's rows; request_log as stored once per (request_id, time). */
async function fingerprint(table: string, onePerRequest = false) {
  const rows = onePerRequest
    ? sql`(SELECT DISTINCT ON (request_id, time) * FROM request_log ORDER BY request_id, time, id) AS t`
    : sql`${sql.identifier(table)} AS t`
  const [r] = await q(sql`SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t.id), '')) AS sum, max(t.id) AS max_id FROM ${rows}`)
  return { n: Number(r.n), sum: String(r.sum), maxId: Number(r.max_id) }
}

// The old schema filled over five days, with NULLs, list values, and three request-log rows
// stored twice (an insert retried after a lost acknowledgement).
const FILL = [
  sql`INSERT INTO request_log (time, request_id, method, route, query, status, duration_ms, client_ip, country, user_agent, referrer, api_key_present, rate_limited, mcp_tool, demo)
      SELECT timestamptz '2026-02-01' + g * interval '37 seconds' + (g % 1000) * interval '1 microsecond', 'req-' || g, CASE WHEN g % 4 = 0 THEN 'POST' ELSE 'GET' END, '/api/r' || (g % 9), CASE WHEN g % 3 = 0 THEN 'ip=***' ELSE '' END,
        CASE WHEN g % 50 = 0 THEN 500 WHEN g % 11 = 0 THEN 404 ELSE 200 END, (g % 997) / 7.0, CASE WHEN g % 5 = 0 THEN NULL ELSE ('198.51.' || (g % 40) || '.0')::inet END,
        CASE WHEN g % 6 = 0 THEN NULL ELSE 'FR' END, 'agent/' || (g % 4), NULL, g % 9 = 0, g % 13 = 0, CASE WHEN g % 8 = 0 THEN 'list_domains' END, g % 2 = 0
      FROM generate_series(1, 11000) AS g`,
  sql`INSERT INTO request_log (time, request_id, method, route, status, duration_ms) SELECT time, request_id, method, route, status, duration_ms FROM request_log WHERE request_id IN ('req-7', 'req-70', 'req-700')`,
  sql`INSERT INTO gateway_dns (datetime, query_name, query_category_names, resolver_decision, rcode, src_ip, row_hash)
      SELECT timestamptz '2026-02-01' + g * interval '71 seconds', 'q' || (g % 60) || '.example', 'Technology, Business', CASE WHEN g % 7 = 0 THEN 'blockedByCategory' ELSE 'allowedOnNoPolicyMatch' END, g % 4, '2001:db8::1', md5('dns' || g)
      FROM generate_series(1, 6000) AS g`,
  sql`INSERT INTO gateway_http (datetime, action, http_host, destination_port, row_hash) SELECT timestamptz '2026-02-02' + g * interval '53 seconds', CASE WHEN g % 5 = 0 THEN 'block' ELSE 'allow' END, 'h' || (g % 30), 443, CASE WHEN g % 10 = 0 THEN NULL ELSE md5('http' || g) END FROM generate_series(1, 4000) AS g`,
  sql`INSERT INTO gateway_network (datetime, action, transport, sni, row_hash) SELECT timestamptz '2026-02-03' + g * interval '90 seconds', 'allow', 'tcp', 's' || (g % 10), md5('net' || g) FROM generate_series(1, 2000) AS g`,
  sql`INSERT INTO gateway_sessions (session_start_time, protocol, bytes_sent, bytes_received, connection_reuse, row_hash) SELECT timestamptz '2026-02-01' + g * interval '3 minutes', 'tcp', g * 10, g * 20, g % 2 = 0, md5('s' || g) FROM generate_series(1, 2000) AS g`,
]

beforeAll(async () => {
  // The migrations as they were before partitioning: 0000 and 0001 with their journal.
  cpSync(path.join(MIGRATIONS_FOLDER, '0000_init.sql'), path.join(oldFolder, '0000_init.sql'))
  cpSync(path.join(MIGRATIONS_FOLDER, '0001_query_role.sql'), path.join(oldFolder, '0001_query_role.sql'))
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'))
  cpSync(path.join(MIGRATIONS_FOLDER, 'meta'), path.join(oldFolder, 'meta'), { recursive: true })
  writeFileSync(path.join(oldFolder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, 2) }))
  testDatabase = await openTestDatabase('migration', { fresh: true })
  database = testDatabase.database
  await database.migrate(oldFolder)
}, 120_000)

afterAll(async () => {
  await testDatabase?.close()
  rmSync(oldFolder, { recursive: true, force: true })
})

describe(`migration to day partitions (${driverName})`, { timeout: 180_000 }, () => {
  it('keeps every row, ids and values, and builds the rollups from them', async () => {
    for (const statement of FILL) await database.db.execute(statement)
    const before = Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, await fingerprint(t, t === 'request_log')] as const)))
    expect((await fingerprint('request_log')).n).toBe(11_003) // three rows stored twice
    const lastId = Number((await q(sql`SELECT last_value FROM request_log_id_seq`))[0].last_value)

    await database.migrate()

    for (const table of TABLES) expect({ table, ...(await fingerprint(table)) }).toEqual({ table, ...before[table] })
    for (const table of TABLES) {
      // Partitioned by day: one partition per day with rows, nothing left in the default one.
      const [info] = await q(
        sql`SELECT p.partstrat AS strategy, (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = ${table}::regclass) AS partitions FROM pg_partitioned_table p WHERE p.partrelid = ${table}::regclass`,
      )
      const days = await q(
        sql`SELECT count(DISTINCT (${sql.identifier(DATASETS[OLD_DATASETS[TABLES.indexOf(table)]].timeColumn)} AT TIME ZONE 'UTC')::date) AS n FROM ${sql.identifier(table)}`,
      )
      expect({ table, strategy: info.strategy, partitions: Number(info.partitions) }).toEqual({ table, strategy: 'r', partitions: Number(days[0].n) + 1 })
      expect(Number((await q(sql`SELECT count(*) AS n FROM ${sql.identifier(`${table}_default`)}`))[0].n)).toBe(0)
      // Every dimension of the rollup adds up to the rows, at both grains.
      const sums = await q(sql`SELECT dimension, grain, sum(rows) AS n FROM ${sql.identifier(`${table}_rollup`)} GROUP BY 1, 2`)
      expect(sums.length).toBeGreaterThan(2)
      for (const s of sums)
        expect({ table, dimension: s.dimension, grain: s.grain, n: Number(s.n) }).toEqual({ table, dimension: s.dimension, grain: s.grain, n: before[table].n })
    }

    // Identity continues after the old sequence; the dashboards read the rollups as query_ro.
    const [{ id }] = await q(
      sql`INSERT INTO request_log (time, request_id, method, route, status, duration_ms) VALUES ('2026-02-03T00:00:00Z', 'after', 'GET', '/', 200, 1) RETURNING id`,
    )
    expect(Number(id)).toBeGreaterThan(lastId)
    const dashboard = await runDashboard({ dataset: 'dns', dateFrom: '2026-02-01', dateTo: '2026-02-06' }, { database })
    const series = dashboard.panels[0]
    expect(series.source).toBe('rollup')
    expect(series.kind === 'timeseries' && series.series[0].values.reduce((a, b) => a + b, 0)).toBe(6000)
    const seen = await readOnly({ database }, (session) =>
      session.execute(
        sql`SELECT (SELECT count(*) FROM gateway_sessions) AS s, (SELECT sum(bytes_sent) FROM gateway_sessions_rollup WHERE dimension = '' AND grain = 'hour') AS b`,
      ),
    )
    expect([Number(seen[0].s), Number(seen[0].b)]).toEqual([2000, (10 * (2000 * 2001)) / 2])
  })
})

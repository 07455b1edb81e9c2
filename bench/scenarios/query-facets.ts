// Facets and group-by over 30 days, in a real Postgres (BENCH_DATABASE_URL, default the local
// qd_bench, seeded as the `query` scenario seeds it: BENCH_QUERY_ROWS `requests` rows over 30 days,
// 10,000,000 by default, kept for later runs). Each figure is a ratio against one raw count(*) over
// the same 30 days measured in the same run, and every statement's EXPLAIN must read an index or
// the rollup (no sequential scan of dataset rows):
// - POST /query/api/facets, no filter: every column from the rollup;
// - POST /query/api/facets, a filter the rollup cannot answer: the newest 10,000 matching rows;
// - POST /query/api/group-by by route (from the rollup), by route per day (from the rollup), and by
//   route and status (from the rows);
// - POST /query/api/patterns of route: templates of the newest 10,000 rows, regexp_replace in SQL;
// - POST /query/api/context: the 10 rows each side of a row, unfiltered and with one field's value.
// `npm run bench query-facets` (after a build).
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { pairedMedians, seqScans, type BenchRow, type Scenario } from '../lib'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER } from '../../test-support/access-keys'
import { startApp } from '../../test-support/app'
import { seed } from '../../lib/datasets/seed'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'

const REQUEST_ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000)
const RUNS = 7

interface Statement {
  text: string
  params: unknown[]
}

/** The 95th percentile of `runs` sequential timings, ms. */
async function p95Ms(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return Math.round(times[Math.ceil(0.95 * runs) - 1] * 10) / 10
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

async function run(): Promise<BenchRow[]> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_bench'
  await ensureDatabase(url)
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const db = drizzle({ client: pool })
  const rows: BenchRow[] = []
  const group = 'query-facets'
  try {
    await migrate(db, { migrationsFolder: 'drizzle' })
    const have = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM request_log WHERE demo')).rows[0].n)
    if (have < REQUEST_ROWS) {
      console.log(`seeding ${REQUEST_ROWS.toLocaleString('en')} requests rows (once; kept for later runs)…`)
      await seed(db as never, { rows: REQUEST_ROWS, datasets: ['requests'], days: 30 })
    }
    const latest = (await pool.query<{ t: Date }>('SELECT max(time) AS t FROM request_log WHERE demo')).rows[0].t.getTime()
    const from30 = day(latest - 29 * 86_400_000)
    const to30 = day(latest)
    const range = { dataset: 'requests', dateFrom: from30, dateTo: to30 }
    const bounds = [`${from30}T00:00:00Z`, new Date(Date.parse(`${to30}T00:00:00Z`) + 86_400_000).toISOString()]
    const rawCount = () => pool.query('SELECT count(*) FROM request_log WHERE time >= $1::timestamptz AND time < $2::timestamptz', bounds)
    const total = Number((await rawCount()).rows[0].count)

    const key = await createTestKey('bench-facets')
    const jwks = await startJwksServer([key])
    const token = await signToken(key)
    const app = await startApp({ DATABASE_URL: url, LOG_LEVEL: 'error', ACCESS_JWKS_URL: jwks.url, ACCESS_AUDIENCE: TEST_AUDIENCE, ACCESS_ISSUER: TEST_ISSUER })
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${app.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: app.url, 'cf-access-jwt-assertion': token },
          body: JSON.stringify(body),
        })
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`)
        return res.json()
      }
      const explain = async (s: Statement) => seqScans((await pool.query(`EXPLAIN (FORMAT JSON) ${s.text}`, s.params)).rows[0]['QUERY PLAN'])
      const cases: Array<{
        name: string
        path: string
        body: Record<string, unknown>
        describe: (r: Record<string, unknown>) => string
        statements: (r: Record<string, unknown>) => Statement[]
      }> = [
        {
          name: 'POST /query/api/facets (30 days, no filter) [goal ≤ 300 ms, ≤ 0.5x]',
          path: '/query/api/facets',
          body: range,
          describe: (r) =>
            `${(r.facets as Array<{ source: string }>).filter((f) => f.source === 'rollup').length} of ${(r.facets as unknown[]).length} columns from the rollup`,
          statements: (r) => (r.statements as Array<{ sql: Statement }>).map((s) => s.sql),
        },
        {
          name: 'POST /query/api/facets (30 days, filter duration_ms > 1000: a sample) [goal ≤ 300 ms, ≤ 0.5x]',
          path: '/query/api/facets',
          body: { ...range, filter: 'duration_ms > 1000' },
          describe: (r) => `sample of ${(r.sample as { rows: number } | null)?.rows.toLocaleString('en')} newest matching rows`,
          statements: (r) => (r.statements as Array<{ sql: Statement }>).map((s) => s.sql),
        },
        {
          name: 'POST /query/api/group-by route, with first/last seen (30 days) [goal ≤ 300 ms, ≤ 0.5x]',
          path: '/query/api/group-by',
          body: { ...range, by: ['route'] },
          describe: (r) => `from the ${r.source}; ${r.groupCount} groups`,
          statements: (r) => [r.sql as Statement],
        },
        {
          name: 'POST /query/api/group-by route per day (30 days, from the rollup) [goal ≤ 300 ms, ≤ 0.5x]',
          path: '/query/api/group-by',
          body: { ...range, by: ['route'], every: 'day', limit: 200 },
          describe: (r) => `from the ${r.source}; ${r.groupCount} (day, route) rows`,
          statements: (r) => [r.sql as Statement],
        },
        {
          name: 'POST /query/api/group-by route, status (30 days, from the rows)',
          path: '/query/api/group-by',
          body: { ...range, by: ['route', 'status'] },
          describe: (r) => `from the ${r.source}; ${r.groupCount} groups; p50/p95 per group`,
          statements: (r) => [r.sql as Statement],
        },
        {
          name: 'POST /query/api/patterns of route (30 days, the newest 10,000 rows) [goal ≤ 500 ms]',
          path: '/query/api/patterns',
          body: { ...range, column: 'route' },
          describe: (r) => `${String(r.templates)} templates in ${(r.sample as { rows: number }).rows.toLocaleString('en')} rows`,
          statements: (r) => (r.statements as Array<{ sql: Statement }>).map((s) => s.sql),
        },
      ]
      // Rows in context around a row in the middle of the range, with and without one field's value as the filter.
      const page = (await post('/query/api/query', { ...range, limit: 500, offset: 20_000 })) as { keys: string[]; rows: Array<Record<string, unknown>> }
      const anchor = { key: page.keys[250], clientIp: page.rows[250].client_ip, route: page.rows[250].route }
      for (const [label, filter] of [
        ['no filter', undefined],
        [`the same route`, `"route" = '${String(anchor.route)}'`],
        [`the same client`, `"client_ip" = '${String(anchor.clientIp)}'`],
      ] as const)
        cases.push({
          name: `POST /query/api/context, 10 rows each side, ${label} [goal p95 ≤ 150 ms]`,
          path: '/query/api/context',
          body: { dataset: 'requests', at: anchor.key, rows: 10, ...(filter ? { filter } : {}) },
          describe: (r) => `${String(r.newer)} newer, ${String(r.older)} older`,
          statements: (r) => r.sql as Statement[],
        })
      for (const c of cases) {
        // A case the statement timeout cancels (the rows of a large range) is reported, not fatal.
        const first = (await post(c.path, c.body).catch((error: Error) => error)) as Record<string, unknown> | Error
        if (first instanceof Error) {
          rows.push({ group, name: c.name, value: NaN, unit: 'ms', note: first.message.slice(0, 160) })
          continue
        }
        const scans = (await Promise.all(c.statements(first).map(explain))).flat()
        await post(c.path, c.body)
        const [value, baseline] = await pairedMedians(RUNS, () => post(c.path, c.body), rawCount)
        const p95 = c.path === '/query/api/context' ? await p95Ms(20, () => post(c.path, c.body)) : null
        rows.push({
          group,
          name: c.name,
          value,
          unit: 'ms',
          baseline,
          baselineName: `one raw count(*) of ${total.toLocaleString('en')} rows, 30 days via pg`,
          note: `${c.describe(first)}${p95 === null ? '' : `; p95 of 20: ${p95} ms`}; ${scans.length ? `sequential scans: ${[...new Set(scans)].join(', ')}` : 'EXPLAIN: an index or the rollup'}`,
        })
      }
    } finally {
      await app.stop()
      await jwks.close()
    }
    return rows
  } finally {
    await pool.end()
  }
}

export default { name: 'query-facets', run } satisfies Scenario

// The query application over 1,000,000 `requests` rows in a real Postgres (BENCH_DATABASE_URL,
// default the local qd_bench): POST /query/api/query (one day and a filter) and
// POST /query/api/dashboard (30 days), each against the very statements it reports having run,
// replayed with plain pg in the same run. The ratio is the cost of everything around the SQL:
// HTTP, the access policy, filter parsing, the read-only transaction, role and timeout.
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { medianMs, type BenchRow, type Scenario } from '../lib'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER } from '../../tests/helpers/access-keys'
import { startApp } from '../../tests/helpers/app'
import { seed } from '../../lib/query/seed'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'

const ROWS = 1_000_000
const RUNS = 15
const FILTER = "status >= 400 AND route LIKE '/api/%'"

interface Statement {
  text: string
  params: unknown[]
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)

async function run(): Promise<BenchRow[]> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_bench'
  await ensureDatabase(url)
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const db = drizzle({ client: pool })
  try {
    await migrate(db, { migrationsFolder: 'drizzle' })
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM request_log WHERE demo')
    if (Number(rows[0].n) < ROWS) {
      console.log(`seeding ${ROWS} request_log rows (once; kept for later runs)…`)
      await seed(db as never, { rows: ROWS, datasets: ['requests'], days: 30 })
    }
    const latest = (await pool.query<{ t: Date }>('SELECT max(time) AS t FROM request_log WHERE demo')).rows[0].t.getTime()
    const oneDay = day(latest - 2 * 86_400_000)
    const queryBody = { dataset: 'requests', dateFrom: oneDay, dateTo: oneDay, filter: FILTER, limit: 100 }
    const dashboardBody = { dataset: 'requests', dateFrom: day(latest - 29 * 86_400_000), dateTo: day(latest) }

    // Production's access path: a signed token verified (proxy and route) against a key set
    // served on loopback, cached after the first request.
    const key = await createTestKey('bench')
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
      const query = (await post('/query/api/query', queryBody)) as { count: number; sql: Statement; countSql: Statement }
      const dashboard = (await post('/query/api/dashboard', dashboardBody)) as { panels: Array<{ sql: Statement }> }
      const replayQuery = async () => {
        await pool.query(query.sql.text, query.sql.params)
        await pool.query(query.countSql.text, query.countSql.params)
      }
      const replayDashboard = () => Promise.all(dashboard.panels.map((p) => pool.query(p.sql.text, p.sql.params)))

      // Warm both paths (plans, caches, connections) before measuring.
      for (let i = 0; i < 3; i++) {
        await post('/query/api/query', queryBody)
        await replayQuery()
      }
      const httpQuery = await medianMs(RUNS, () => post('/query/api/query', queryBody))
      const pgQuery = await medianMs(RUNS, replayQuery)
      await post('/query/api/dashboard', dashboardBody)
      await replayDashboard()
      const httpDashboard = await medianMs(RUNS, () => post('/query/api/dashboard', dashboardBody))
      const pgDashboard = await medianMs(RUNS, replayDashboard)

      const group = 'query'
      return [
        { group, name: 'POST /query/api/query (1 day, filter)', value: httpQuery, unit: 'ms', baseline: pgQuery, baselineName: 'same SQL via pg', note: `${query.count} of ${ROWS} rows match; median of ${RUNS}` },
        { group, name: 'POST /query/api/dashboard (30 days)', value: httpDashboard, unit: 'ms', baseline: pgDashboard, baselineName: 'same SQL via pg', note: `${dashboard.panels.length} panels concurrently; median of ${RUNS}` },
      ]
    } finally {
      await app.stop()
      await jwks.close()
    }
  } finally {
    await pool.end()
  }
}

export default { name: 'query', run } satisfies Scenario

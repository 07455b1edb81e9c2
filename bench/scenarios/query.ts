// The query application at scale, in a real Postgres (BENCH_DATABASE_URL, default the local
// qd_bench): 10,000,000 `requests` rows over 30 days (and 1,000,000 rows per gateway dataset for
// the plan checks), seeded once with generate_series and kept for later runs. Each figure is a
// ratio against a baseline measured in the same run:
// - POST /query/api/query (one day, a filter) against the statements it reports, replayed with pg;
// - POST /query/api/dashboard (30 days) against one raw count(*) over the same 30 days;
// - keyset page 200 against page 1 (and offset page 200, for contrast);
// - Logpush ingest of gzip'd NDJSON batches, rollups included, against COPY of the same rows;
// - what each step of a query costs: JWT verification, filter parse/check/deparse, and the
//   read-only transaction set-up that the query role's own connections no longer need;
// - EXPLAIN of every dataset's quick filters (rows and count) and dashboard panels: each must read
//   an index or a rollup.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { stringify } from 'csv-stringify/sync'
import { getTableColumns } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { medianMs, pairedMedians, seqScans, type BenchRow, type Scenario } from '../lib'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER } from '../../test-support/access-keys'
import { startApp } from '../../test-support/app'
import { gatewayDns } from '../../lib/datasets/dns/tables'
import { verifyAccessToken } from '../../lib/access/verify'
import { DATASET_IDS, DATASETS, type DatasetId } from '../../lib/datasets/catalog'
import { checkFilterSync, loadFilterParser } from '../../lib/query/filter'
import { parseBatch } from '../../lib/ingest/logpush'
import { seed } from '../../lib/datasets/seed'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'

// BENCH_QUERY_ROWS: fewer `requests` rows for a quick run (gateway datasets get a tenth of it).
const REQUEST_ROWS = Number(process.env.BENCH_QUERY_ROWS ?? 10_000_000)
const GATEWAY_ROWS = Math.min(1_000_000, Math.round(REQUEST_ROWS / 10))
const ROWS: Record<DatasetId, number> = {
  requests: REQUEST_ROWS,
  dns: GATEWAY_ROWS,
  http: GATEWAY_ROWS,
  network: GATEWAY_ROWS,
  sessions: GATEWAY_ROWS,
  job_runs: 10_000,
  domain_checks: 10_000,
  alerts: 10_000,
}
const RUNS = 15
const FILTER = "status >= 400 AND route LIKE '/api/%'"
const PAGE = 100
const INGEST_LINES = 200_000
const INGEST_BATCH = 10_000
const SEED_TIMES = new URL('../results/query-seed.json', import.meta.url)

interface Statement {
  text: string
  params: unknown[]
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const secondsSince = (t0: number) => (performance.now() - t0) / 1000

interface SeedTime {
  seconds: number
  rows: number
}

/** Seeds what is missing; returns the seeding time of each dataset (recorded when it was seeded). */
async function ensureSeeded(pool: pg.Pool, db: ReturnType<typeof drizzle>): Promise<Record<string, SeedTime>> {
  const recorded: Record<string, SeedTime | number> = existsSync(SEED_TIMES) ? JSON.parse(readFileSync(SEED_TIMES, 'utf8')) : {}
  const times: Record<string, SeedTime> = Object.fromEntries(Object.entries(recorded).filter((e): e is [string, SeedTime] => typeof e[1] === 'object'))
  for (const id of DATASET_IDS) {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${DATASETS[id].table} WHERE demo`)
    if (Number(rows[0].n) === times[id]?.rows && times[id].rows >= ROWS[id]) continue
    console.log(`seeding ${ROWS[id].toLocaleString('en')} ${id} rows (once; kept for later runs)…`)
    const t0 = performance.now()
    await seed(db as never, { rows: ROWS[id], datasets: [id], days: 30 })
    times[id] = { seconds: secondsSince(t0), rows: ROWS[id] }
    mkdirSync(new URL('../results/', import.meta.url), { recursive: true })
    writeFileSync(SEED_TIMES, JSON.stringify(times, null, 2))
  }
  return times
}

async function run(): Promise<BenchRow[]> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_bench'
  await ensureDatabase(url)
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const db = drizzle({ client: pool })
  const rows: BenchRow[] = []
  const group = 'query'
  try {
    await migrate(db, { migrationsFolder: 'drizzle' })
    const seeded = await ensureSeeded(pool, db)
    const latest = (await pool.query<{ t: Date }>('SELECT max(time) AS t FROM request_log WHERE demo')).rows[0].t.getTime()
    const oneDay = day(latest - 2 * 86_400_000)
    const from30 = day(latest - 29 * 86_400_000)
    const to30 = day(latest)
    const queryBody = { dataset: 'requests', dateFrom: oneDay, dateTo: oneDay, filter: FILTER, limit: PAGE }
    const dashboardBody = { dataset: 'requests', dateFrom: from30, dateTo: to30 }
    const n = (x: number) => x.toLocaleString('en')
    rows.push({
      group,
      name: `seeding ${n(seeded.requests.rows)} requests rows (generate_series per day, indexes and rollup built per day, ATTACH PARTITION)`,
      value: seeded.requests.seconds,
      unit: 's',
      note: `${n(Math.round(seeded.requests.rows / seeded.requests.seconds))} rows/s incl. indexes and rollup; gateway datasets: ${DATASET_IDS.filter(
        (d) => d !== 'requests',
      )
        .map((d) => `${d} ${seeded[d]?.seconds.toFixed(0)} s`)
        .join(', ')} for ${n(GATEWAY_ROWS)} rows each`,
    })

    // Production's access path: a signed token verified (proxy and route) against a key set
    // served on loopback, cached after the first request.
    const key = await createTestKey('bench')
    const jwks = await startJwksServer([key])
    const token = await signToken(key)
    const secret = `bench-logpush-secret-0123456789abcdef-${process.pid}`
    const app = await startApp({
      DATABASE_URL: url,
      LOG_LEVEL: 'error',
      ACCESS_JWKS_URL: jwks.url,
      ACCESS_AUDIENCE: TEST_AUDIENCE,
      ACCESS_ISSUER: TEST_ISSUER,
      LOGPUSH_SECRET: secret,
    })
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

      // 1. One day, filtered: the whole request against its own statements through pg, which run
      //    concurrently as the service runs them.
      const query = (await post('/query/api/query', queryBody)) as { count: number; sql: Statement; countSql: Statement }
      const replayQuery = () => Promise.all([pool.query(query.sql.text, query.sql.params), pool.query(query.countSql.text, query.countSql.params)])
      for (let i = 0; i < 3; i++) await Promise.all([post('/query/api/query', queryBody), replayQuery()])
      const [httpQuery, pgQuery] = await pairedMedians(RUNS, () => post('/query/api/query', queryBody), replayQuery)
      rows.push({
        group,
        name: 'POST /query/api/query (1 day, filter) [goal ≤ 1.5x]',
        value: httpQuery,
        unit: 'ms',
        baseline: pgQuery,
        baselineName: 'same SQL via pg',
        note: `${query.count.toLocaleString('en')} matching rows; median of ${RUNS}`,
      })

      // 2. 30 days of dashboard against one raw count over the same 30 days.
      const dashboard = (await post('/query/api/dashboard', dashboardBody)) as { panels: Array<{ id: string; source: string; sql: Statement }> }
      const rawCount = () =>
        pool.query('SELECT count(*) FROM request_log WHERE time >= $1::timestamptz AND time < $2::timestamptz', [
          `${from30}T00:00:00Z`,
          new Date(Date.parse(`${to30}T00:00:00Z`) + 86_400_000).toISOString(),
        ])
      await rawCount()
      const [httpDashboard, pgCount] = await pairedMedians(5, () => post('/query/api/dashboard', dashboardBody), rawCount)
      const replayDashboard = await medianMs(RUNS, () => Promise.all(dashboard.panels.map((p) => pool.query(p.sql.text, p.sql.params))))
      const fromRollup = dashboard.panels.filter((p) => p.source === 'rollup').length
      rows.push({
        group,
        name: 'POST /query/api/dashboard (30 days) [goal ≤ 300 ms, ≤ 0.5x]',
        value: httpDashboard,
        unit: 'ms',
        baseline: pgCount,
        baselineName: 'one raw count(*), 30 days via pg',
        note: `${fromRollup} of ${dashboard.panels.length} panels from the rollup; their SQL alone via pg: ${replayDashboard.toFixed(1)} ms`,
      })

      // 2b. The comparison with the week before (30 days: both histograms and what changed per
      //     column) and the 30-day histogram split by status class, against the same raw count.
      const compareBody = { ...dashboardBody, compare: 'week' }
      const splitBody = { ...dashboardBody, split: 'status_class' }
      const compared = (await post('/query/api/compare', compareBody)) as {
        changes: Array<{ source: string }>
        histogram: { source: string }
        baseline: { source: string }
      }
      const split = (await post('/query/api/split', splitBody)) as { source: string }
      const [httpCompare, pgCount2] = await pairedMedians(5, () => post('/query/api/compare', compareBody), rawCount)
      rows.push({
        group,
        name: 'POST /query/api/compare (30 days against the week before) [goal ≤ 300 ms, ≤ 0.5x]',
        value: httpCompare,
        unit: 'ms',
        baseline: pgCount2,
        baselineName: 'one raw count(*), 30 days via pg',
        note: `histograms from ${compared.histogram.source} and ${compared.baseline.source}; ${compared.changes.filter((c) => c.source === 'rollup').length} of ${compared.changes.length} columns from the rollup`,
      })
      const [httpSplit, pgCount3] = await pairedMedians(5, () => post('/query/api/split', splitBody), rawCount)
      rows.push({
        group,
        name: 'POST /query/api/split (30 days by status class) [goal ≤ 300 ms, ≤ 0.5x]',
        value: httpSplit,
        unit: 'ms',
        baseline: pgCount3,
        baselineName: 'one raw count(*), 30 days via pg',
        note: `from ${split.source}`,
      })
      // 2b. The same 30 days given to the minute and to the second, each against one raw count(*)
      //     in the same run: the rollup answers the interior, the rows only the partial minutes at
      //     the edges, so both stay near the whole-day figure. Plus the rollup's size against its rows.
      const minuteTo = Math.floor(latest / 60_000) * 60_000 - 3 * 60_000
      const minuteBody = {
        dataset: 'requests',
        dateFrom: new Date(minuteTo - 30 * 86_400_000 + 7 * 60_000).toISOString(),
        dateTo: new Date(minuteTo).toISOString(),
      }
      const secondBody = {
        dataset: 'requests',
        dateFrom: new Date(Date.parse(minuteBody.dateFrom) + 17_345).toISOString(),
        dateTo: new Date(minuteTo - 3_210).toISOString(),
      }
      const rangeCount = () =>
        pool.query('SELECT count(*) FROM request_log WHERE time >= $1::timestamptz AND time < $2::timestamptz', [minuteBody.dateFrom, minuteBody.dateTo])
      for (const body of [minuteBody, secondBody]) await post('/query/api/dashboard', body)
      const [minuteMs, minuteCount] = await pairedMedians(5, () => post('/query/api/dashboard', minuteBody), rangeCount)
      const [secondMs, secondCount] = await pairedMedians(5, () => post('/query/api/dashboard', secondBody), rangeCount)
      const second = (await post('/query/api/dashboard', secondBody)) as { panels: Array<{ source: string; approximate?: boolean }> }
      const secondFromRollup = second.panels.filter((p) => p.source === 'rollup').length
      const approximate = second.panels.filter((p) => p.approximate).length
      rows.push({
        group,
        name: 'POST /query/api/dashboard (30 days to the minute) [goal ≤ 0.5x]',
        value: minuteMs,
        unit: 'ms',
        baseline: minuteCount,
        baselineName: 'one raw count(*), same range via pg',
      })
      rows.push({
        group,
        name: 'POST /query/api/dashboard (30 days to the second) [goal ≤ 0.5x]',
        value: secondMs,
        unit: 'ms',
        baseline: secondCount,
        baselineName: 'one raw count(*), same range via pg',
        note: `${secondFromRollup} of ${second.panels.length} panels from the rollup (${approximate} top lists marked approximate); to the minute: ${minuteMs.toFixed(1)} ms`,
      })
      const size = (
        await pool.query<{ rows: string; rollup: string }>(
          'SELECT (SELECT count(*) FROM request_log) AS rows, (SELECT count(*) FROM request_log_rollup) AS rollup',
        )
      ).rows[0]
      rows.push({
        group,
        name: 'request_log_rollup rows [goal ≤ 0.5x]',
        value: Number(size.rollup),
        unit: 'rows',
        baseline: Number(size.rows),
        baselineName: 'request_log rows it summarises',
      })

      // 3. Keyset paging: page 200 (rows 19,901–20,000 of the 30 days) against page 1.
      const range30 = { dataset: 'requests', dateFrom: from30, dateTo: to30, limit: PAGE }
      const cursorRow = await pool.query<{ id: string; us: string }>(
        'SELECT id, (extract(epoch FROM time) * 1000000)::bigint AS us FROM request_log WHERE time >= $1::timestamptz AND time < $2::timestamptz ORDER BY time DESC, id DESC OFFSET $3 LIMIT 1',
        [`${from30}T00:00:00Z`, new Date(Date.parse(`${to30}T00:00:00Z`) + 86_400_000).toISOString(), 199 * PAGE - 1],
      )
      const us = BigInt(cursorRow.rows[0].us)
      const cursor = `${new Date(Number(us / 1000n)).toISOString().replace('Z', `${String(us % 1000n).padStart(3, '0')}Z`)}~${cursorRow.rows[0].id}`
      const page200 = { ...range30, offset: 199 * PAGE, cursor }
      const offset200 = { ...range30, offset: 199 * PAGE }
      for (let i = 0; i < 3; i++) await Promise.all([post('/query/api/query', range30), post('/query/api/query', page200)])
      const [keyset, first] = await pairedMedians(
        RUNS,
        () => post('/query/api/query', page200),
        () => post('/query/api/query', range30),
      )
      const offset = await medianMs(5, () => post('/query/api/query', offset200))
      rows.push({
        group,
        name: 'keyset page 200 (30 days, 100 rows) [goal ≤ 1.2x]',
        value: keyset,
        unit: 'ms',
        baseline: first,
        baselineName: 'page 1',
        note: `offset paging to the same page: ${offset.toFixed(1)} ms`,
      })

      // 4. Logpush ingest of gzip'd batches (rollups included) against COPY of the same rows.
      const run = Date.now()
      const lines = Array.from({ length: INGEST_LINES }, (_, i) =>
        JSON.stringify({
          Datetime: new Date(latest - 3_600_000 + Math.floor((i * 3_600_000) / INGEST_LINES)).toISOString(),
          ColoCode: ['CDG', 'AMS', 'FRA'][i % 3],
          DeviceName: `device-${i % 50}`,
          Email: `user${i % 200}@example.com`,
          Location: 'HQ Paris',
          Protocol: 'https',
          QueryCategoryNames: ['Technology', 'Business'],
          QueryID: `bench-${run}-${i}`,
          QueryName: `host${i % 5000}.example.com`,
          QueryTypeName: ['A', 'AAAA', 'HTTPS'][i % 3],
          RCode: i % 40 === 0 ? 3 : 0,
          ResolvedIPs: ['192.0.2.1'],
          ResolverDecision: i % 9 === 0 ? 'blockedByCategory' : 'allowedOnNoPolicyMatch',
          SrcIP: `192.0.2.${i % 200}`,
          UserID: `u-${i % 200}`,
        }),
      )
      const batches = Array.from({ length: INGEST_LINES / INGEST_BATCH }, (_, b) => gzipSync(lines.slice(b * INGEST_BATCH, (b + 1) * INGEST_BATCH).join('\n')))
      const send = async (batch: Buffer) => {
        const res = await fetch(`${app.url}/query/ingest/dns`, {
          method: 'POST',
          headers: { 'x-logpush-secret': secret, 'content-encoding': 'gzip' },
          body: new Uint8Array(batch),
        })
        const body = (await res.json()) as { inserted: number }
        if (res.status !== 200 || body.inserted !== INGEST_BATCH) throw new Error(`ingest answered ${res.status}: ${JSON.stringify(body)}`)
      }
      // Two uploads in flight: one batch is parsed while the other is written.
      const t0 = performance.now()
      const queue = [...batches]
      await Promise.all(
        [0, 1].map(async () => {
          for (let batch = queue.shift(); batch; batch = queue.shift()) await send(batch)
        }),
      )
      const ingestRate = INGEST_LINES / secondsSince(t0)
      const parsed = parseBatch(DATASETS.dns, gatewayDns, lines.join('\n')).rows
      const columns = Object.entries(getTableColumns(gatewayDns)).filter(([prop]) => prop in parsed[0])
      const csv = stringify(
        parsed.map((r) => columns.map(([prop]) => (r[prop] instanceof Date ? (r[prop] as Date).toISOString() : r[prop]))),
        { cast: { boolean: (b) => String(b) } },
      )
      await pool.query('DROP TABLE IF EXISTS bench_copy_dns')
      await pool.query('CREATE TABLE bench_copy_dns (LIKE gateway_dns INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING INDEXES)')
      const t1 = performance.now()
      const copied = spawnSync(
        'psql',
        [url, '-v', 'ON_ERROR_STOP=1', '-c', `\\copy bench_copy_dns (${columns.map(([, c]) => c.name).join(', ')}) FROM STDIN WITH (FORMAT csv)`],
        { input: csv },
      )
      const copyRate = INGEST_LINES / secondsSince(t1)
      if (copied.status !== 0) throw new Error(`COPY failed: ${copied.stderr}`)
      await pool.query('DROP TABLE bench_copy_dns')
      rows.push({
        group,
        name: 'Logpush ingest, gzip NDJSON incl. rollups [goal ≥ 50,000 rows/s]',
        value: ingestRate,
        unit: 'rows/s',
        baseline: copyRate,
        baselineName: 'COPY of the same rows (psql)',
        note: `${INGEST_LINES.toLocaleString('en')} gateway_dns lines (5,000 distinct domains) in ${batches.length} batches of ${INGEST_BATCH.toLocaleString('en')} over HTTP, 2 in flight`,
      })
    } finally {
      await app.stop()
      await jwks.close()
    }

    // 5. The request-log path has a scenario of its own: bench/scenarios/request-log.ts.

    // 6. What the steps around the SQL cost, per query.
    {
      const key = await createTestKey('steps')
      const jwks = await startJwksServer([key])
      const token = await signToken(key)
      const settings = { jwksUrl: jwks.url, audience: [TEST_AUDIENCE], issuer: TEST_ISSUER, allowedEmails: [] }
      await verifyAccessToken(token, settings)
      // A token's first verification (signature checked), then the remembered verdict (every later request).
      const tokens = await Promise.all(Array.from({ length: 200 }, (_, i) => signToken(key, { jti: `bench-${i}` })))
      let next = 0
      const verify = await medianMs(200, () => verifyAccessToken(tokens[next++], settings))
      const verifyAgain = await medianMs(200, () => verifyAccessToken(token, settings))
      await jwks.close()
      await loadFilterParser()
      // A filter's first check (a different literal each time), then the remembered one.
      const t0 = performance.now()
      for (let i = 0; i < 2000; i++) checkFilterSync(`${FILTER} AND duration_ms >= ${i}`, DATASETS.requests)
      const filterMs = (performance.now() - t0) / 2000
      const t1 = performance.now()
      for (let i = 0; i < 2000; i++) checkFilterSync(FILTER, DATASETS.requests)
      const filterAgainMs = (performance.now() - t1) / 2000
      const plain = new pg.Client({ connectionString: url })
      const reader = new pg.Client({ connectionString: url, options: '-c role=query_ro -c default_transaction_read_only=on -c statement_timeout=5000' })
      await Promise.all([plain.connect(), reader.connect()])
      const withTransaction = await medianMs(200, async () => {
        await plain.query('BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ')
        await plain.query("SELECT set_config('role', 'query_ro', true), set_config('statement_timeout', '5000', true)")
        await plain.query('SELECT 1')
        await plain.query('COMMIT')
      })
      const withSession = await medianMs(200, () => reader.query('SELECT 1'))
      await Promise.all([plain.end(), reader.end()])
      rows.push({
        group,
        name: 'step: JWT verification, remembered verdict (proxy and route, every request after the first)',
        value: verifyAgain * 1000,
        unit: 'µs',
        baseline: verify * 1000,
        baselineName: "a token's first verification (key set cached)",
      })
      rows.push({
        group,
        name: 'step: filter, remembered check',
        value: filterAgainMs * 1000,
        unit: 'µs',
        baseline: filterMs * 1000,
        baselineName: 'first parse + allow-list + deparse',
        note: FILTER,
      })
      rows.push({
        group,
        name: 'step: read-only set-up, query role connections (SELECT 1)',
        value: withSession,
        unit: 'ms',
        baseline: withTransaction,
        baselineName: 'BEGIN, set_config, SELECT 1, COMMIT (before)',
      })
    }

    // 7. Plans: every quick filter (rows and count over a day) and every dashboard panel (30 days).
    {
      const key = await createTestKey('plans')
      const jwks = await startJwksServer([key])
      const token = await signToken(key)
      const app = await startApp({
        DATABASE_URL: url,
        LOG_LEVEL: 'error',
        ACCESS_JWKS_URL: jwks.url,
        ACCESS_AUDIENCE: TEST_AUDIENCE,
        ACCESS_ISSUER: TEST_ISSUER,
      })
      const post = async (path: string, body: unknown) =>
        (
          await fetch(`${app.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: app.url, 'cf-access-jwt-assertion': token },
            body: JSON.stringify(body),
          })
        ).json()
      const checked: Array<{ dataset: string; what: string; seqScans: string[] }> = []
      const explain = async (dataset: string, what: string, s: Statement) => {
        const plan = (await pool.query(`EXPLAIN (FORMAT JSON) ${s.text.replace(/^EXPLAIN \(FORMAT JSON\) /, '')}`, s.params)).rows[0]['QUERY PLAN']
        checked.push({ dataset, what, seqScans: [...new Set(seqScans(plan))] })
      }
      try {
        for (const id of DATASET_IDS) {
          const d = DATASETS[id]
          const { rows: last } = await pool.query<{ t: Date }>(`SELECT max(${d.timeColumn}) AS t FROM ${d.table} WHERE demo`)
          const dayOf = day(last[0].t.getTime() - 86_400_000)
          for (const q of d.quickFilters) {
            const r = (await post('/query/api/query', { dataset: id, dateFrom: dayOf, dateTo: dayOf, filter: q.filter })) as {
              sql: Statement
              countSql: Statement
            }
            await explain(id, `${q.label}: rows`, r.sql)
            await explain(id, `${q.label}: count`, r.countSql)
          }
          const dash = (await post('/query/api/dashboard', {
            dataset: id,
            dateFrom: day(last[0].t.getTime() - 29 * 86_400_000),
            dateTo: day(last[0].t.getTime()),
          })) as { panels: Array<{ id: string; sql: Statement }> }
          for (const p of dash.panels) await explain(id, `dashboard ${p.id}`, p.sql)
        }
      } finally {
        await app.stop()
        await jwks.close()
      }
      const bad = checked.filter((c) => c.seqScans.length)
      for (const c of bad) console.log(`  sequential scan: ${c.dataset} ${c.what} (${c.seqScans.slice(0, 3).join(', ')}${c.seqScans.length > 3 ? '…' : ''})`)
      rows.push({
        group,
        name: 'plans reading an index or a rollup (EXPLAIN)',
        value: checked.length - bad.length,
        unit: 'statements',
        baseline: checked.length,
        baselineName: 'quick-filter rows and counts, dashboard panels',
        note: bad.length ? `sequential scans: ${bad.map((b) => `${b.dataset} ${b.what}`).join('; ')}` : 'no sequential scan of dataset rows',
      })
    }
    return rows
  } finally {
    await pool.end()
  }
}

export default { name: 'query', run } satisfies Scenario

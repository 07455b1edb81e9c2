import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase } from '@/lib/db/client'
import { DATASET_IDS } from '@/lib/datasets/catalog'
import { writeRequestLog } from '@/lib/request-log/store'
import { createTestKey, signToken, startJwksServer, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, type RunningApp } from '../../test-support/app'

// The query application's routes and pages in the built server, over known rows: on PGlite by
// default, on the Postgres at QUERY_TEST_DATABASE_URL when set (scripts/test.mjs runs both; that
// database is emptied first). Identity: a token of the access proxy, verified by the built server
// (a DATABASE_URL turns the local operator off).

const pgUrl = process.env.QUERY_TEST_DATABASE_URL || undefined
const dir = pgUrl ? undefined : mkdtempSync(path.join(tmpdir(), 'qa-itest-'))
const driverName = pgUrl ? 'postgres' : 'pglite'
let app: RunningApp
let key: TestKey
let jwks: JwksServer

/** fetch, signed in through the access proxy. */
async function call(url: string, init: RequestInit = {}) {
  return fetch(url, { ...init, headers: { 'cf-access-jwt-assertion': await signToken(key), ...(init.headers as Record<string, string>) } })
}

const DAY = '2026-01-10'
const base = Date.parse(`${DAY}T00:00:00Z`)
const ROWS = Array.from({ length: 230 }, (_, i) => ({
  time: new Date(base + i * 300_000),
  requestId: `qa-${i}`,
  method: 'GET',
  route: `/api/r${i % 5}`,
  status: i % 10 === 0 ? 503 : 200,
  durationMs: i + 1,
  clientIp: '198.51.100.0',
  // Client-supplied text that a spreadsheet would run as a formula.
  userAgent: i === 229 ? '=HYPERLINK("http://evil.example","x")' : 'curl/8.7.1',
}))
const ERRORS = ROWS.filter((r) => r.status === 503).length

const post = (route: string, body: unknown) =>
  call(`${app.url}/query/api/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
const query = (extra: Record<string, unknown> = {}) => post('query', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, ...extra })

beforeAll(async () => {
  // The app owns the database once it runs (a PGlite directory has one owner): load rows first.
  const database = await createDatabase({ DATABASE_URL: pgUrl, PGLITE_DIR: dir ?? 'memory://' })
  try {
    await database.migrate()
    await database.db.execute(
      sql`TRUNCATE request_log, gateway_dns, gateway_http, gateway_network, gateway_sessions, request_log_rollup, gateway_dns_rollup, gateway_http_rollup, gateway_network_rollup, gateway_sessions_rollup RESTART IDENTITY`,
    )
    await writeRequestLog(database.db, ROWS)
  } finally {
    await database.close()
  }
  // The rows are from a fixed day in the past: keep them whatever today's date (retention). A cap
  // below the 230 rows, so the export's limit shows.
  key = await createTestKey('rsa-query-app')
  jwks = await startJwksServer([key])
  app = await startApp({
    ACCESS_JWKS_URL: jwks.url,
    ACCESS_AUDIENCE: 'test-aud-tag',
    ACCESS_ISSUER: 'https://team.example.test',
    QUERY_RETENTION_DAYS: '3660',
    QUERY_EXPORT_MAX_ROWS: '200',
    ...(pgUrl ? { DATABASE_URL: pgUrl } : { PGLITE_DIR: dir }),
  })
}, 90_000)

afterAll(async () => {
  await app?.stop()
  await jwks?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe(`query application routes (${driverName})`, () => {
  it('GET health reports the database', async () => {
    const res = await call(`${app.url}/query/api/health`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ok', database: { status: 'ok', detail: expect.stringMatching(/reachable/) } })
  })

  it('GET datasets lists every dataset with columns, quick filters and panels', async () => {
    const res = await call(`${app.url}/query/api/datasets`)
    const body = await res.json()
    expect(body.datasets.map((d: { id: string }) => d.id)).toEqual([...DATASET_IDS])
    expect(body.datasets[0]).toMatchObject({ id: 'requests', label: expect.any(String), description: expect.any(String), timeColumn: 'time' })
    for (const d of body.datasets) {
      expect(d.columns.length).toBeGreaterThan(5)
      expect(d.quickFilters.length).toBeGreaterThan(0)
      expect(d.panels[0]).toMatchObject({ id: 'count_over_time', kind: 'timeseries' })
      expect(d.sortColumns[0]).toBe(d.timeColumn)
    }
    expect(body).toMatchObject({ maxRangeDays: 31, limits: { minLimit: 1, maxLimit: 500, defaultLimit: 100, exactCountLimit: 100_000 } })
    expect(body.datasets.map((d: { id: string; retentionDays: number }) => [d.id, d.retentionDays])).toEqual(DATASET_IDS.map((id) => [id, 3660]))
  })

  it('POST query pages through every row with the full count on each page', async () => {
    const pages = await Promise.all([0, 100, 200].map(async (offset) => (await query({ offset })).json()))
    expect(pages.map((p) => p.rows.length)).toEqual([100, 100, 30])
    expect(pages.map((p) => p.count)).toEqual([230, 230, 230])
    expect(new Set(pages.flatMap((p) => p.rows.map((r: { request_id: string }) => r.request_id))).size).toBe(230)
    expect(pages[0].rows[0]).toMatchObject({ request_id: 'qa-229', time: '2026-01-10T19:05:00.000Z' })
    expect(pages[0].sql.text).toMatch(/^SELECT .* FROM "request_log" WHERE .* LIMIT \$\d+ OFFSET \$\d+$/)
    expect(pages.map((p) => [p.countExact, p.nextCursor === null])).toEqual([
      [true, false],
      [true, false],
      [true, true],
    ])
    expect(pages[0].sql.params).toEqual(['2026-01-10T00:00:00.000Z', '2026-01-11T00:00:00.000Z', 100, 0])
    expect(pages[0].elapsedMs).toEqual(expect.any(Number))
  })

  it('POST query applies the filter to rows and count', async () => {
    const body = await (await query({ filter: 'status >= 500', limit: 500 })).json()
    expect(body.count).toBe(ERRORS)
    expect(body.rows).toHaveLength(ERRORS)
    expect(body.filter).toBe('status >= 500')
  })

  it.each([
    [{ limit: 0 }, /limit/],
    [{ limit: 501 }, /limit/],
    [{ offset: -1 }, /offset/],
    [{ dateFrom: '2026-01-01', dateTo: '2026-03-01' }, /31 days/],
    [{ filter: 'nope = 1' }, /nope/],
    [{ filter: 'pg_sleep(1) IS NULL' }, /pg_sleep/],
    [{ filter: 'status = 1; DELETE FROM request_log' }, /./],
  ])('POST query rejects %j with 400 in the envelope', async (extra, message) => {
    const res = await query(extra)
    expect(res.status).toBe(400)
    const body = await res.json()
    expect(body).toEqual({ error: { code: 'invalid_input', message: expect.stringMatching(message), requestId: res.headers.get('x-request-id') } })
  })

  it('POST query sorts by an indexed column: ORDER BY in the SQL, offset paging, ties by time', async () => {
    const pages = await Promise.all([0, 100, 200].map(async (offset) => (await query({ sort: 'duration_ms', order: 'asc', offset })).json()))
    expect(pages.map((p) => [p.rows.length, p.nextCursor, p.sort])).toEqual([100, 100, 30].map((n) => [n, null, { column: 'duration_ms', order: 'asc' }]))
    expect(pages.flatMap((p) => p.rows.map((r: { duration_ms: number }) => r.duration_ms))).toEqual(ROWS.map((r) => r.durationMs))
    expect(pages[0].sql.text).toMatch(/ORDER BY "duration_ms" ASC, "time" ASC, "id" ASC LIMIT \$\d+ OFFSET \$\d+$/)
    const byStatus = await (await query({ sort: 'status', order: 'desc', limit: 500 })).json()
    expect(byStatus.rows.slice(0, ERRORS).map((r: { status: number }) => r.status)).toEqual(Array(ERRORS).fill(503))
    expect(byStatus.rows[0].request_id).toBe('qa-220') // the newest of the 503s
  })

  it('POST query pages by keyset oldest first', async () => {
    const first = await (await query({ sort: 'time', order: 'asc' })).json()
    expect(first.rows[0].request_id).toBe('qa-0')
    expect(first.nextCursor).toEqual(expect.any(String))
    const second = await (await query({ sort: 'time', order: 'asc', cursor: first.nextCursor, offset: 100 })).json()
    expect(second.rows.map((r: { request_id: string }) => r.request_id)).toEqual(ROWS.slice(100, 200).map((r) => r.requestId))
    expect(second.sql.text).toContain('> ($')
  })

  it.each([
    [{ sort: 'user_agent' }, /not a sortable column of requests; sortable \(indexed\) columns: time, status, duration_ms/],
    [{ sort: 'status', cursor: '2026-01-10T12:00:00.000000Z~5' }, /page with offset/],
    [{ order: 'up' }, /order/],
  ])('POST query rejects the sort %j', async (extra, message) => {
    const res = await query(extra)
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toMatch(message)
  })

  it('POST query answers 400 for a body that is not JSON or not an object', async () => {
    for (const body of ['{"dataset":', '[]', '']) expect((await post('query', body)).status).toBe(400)
  })

  it('POST dashboard returns every panel of the dataset', async () => {
    const res = await post('dashboard', { dataset: 'requests', dateFrom: DAY, dateTo: DAY })
    expect(res.status).toBe(200)
    const body = await res.json()
    const byId = Object.fromEntries(body.panels.map((p: { id: string }) => [p.id, p]))
    expect(byId.count_over_time.series[0].values.reduce((a: number, b: number) => a + b, 0)).toBe(230)
    expect(byId.latency).toMatchObject({ count: 230, errorRate: ERRORS / 230 })
    expect(byId.by_status.rows).toEqual([
      { value: 200, count: 230 - ERRORS },
      { value: 503, count: ERRORS },
    ])
    expect(byId.top_route.rows).toHaveLength(5)
  })
})

describe(`query application pages (${driverName})`, () => {
  it('POST patterns clusters a text column into templates with a filter each, and answers 400 for a column that is not text', async () => {
    const res = await post('patterns', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, column: 'user_agent' })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ column: 'user_agent', templates: 2, sample: { limit: 10_000, rows: 230, matching: 230 } })
    expect(body.patterns.map((p: { template: string; count: number; filter: string }) => [p.template, p.count, p.filter])).toEqual([
      ['curl/<num>', 229, `"user_agent" LIKE 'curl/%'`],
      ['=HYPERLINK("http://evil.example","x")', 1, `"user_agent" LIKE '=HYPERLINK("http://evil.example","x")'`],
    ])
    const refused = await post('patterns', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, column: 'status' })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.message).toMatch(/"status" is not a text column of requests; patterns are for request_id, method, route/)
  })

  it('POST group-by with every splits each group per hour (UTC by default) and refuses an unknown time zone', async () => {
    const res = await post('group-by', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['status'], every: 'hour', limit: 200 })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ source: 'rollup', every: 'hour', timeZone: 'UTC', total: 230 })
    const expected = new Map<string, number>()
    for (const r of ROWS) {
      const key = JSON.stringify([new Date(Math.floor(r.time.getTime() / 3_600_000) * 3_600_000).toISOString(), r.status])
      expected.set(key, (expected.get(key) ?? 0) + 1)
    }
    expect(body.groupCount).toBe(expected.size)
    expect(new Map(body.groups.map((g: { values: unknown[]; count: number }) => [JSON.stringify(g.values), g.count]))).toEqual(expected)
    const bad = await post('group-by', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['status'], every: 'day', timeZone: 'Mars/Olympus' })
    expect(bad.status).toBe(400)
  })

  const page = async (p: string) => {
    const res = await call(`${app.url}${p}`)
    expect(res.status).toBe(200)
    return res.text()
  }
  const custom = `dataset=requests&range=custom&from=${DAY}&to=${DAY}`

  it('renders a page of rows with the count, the SQL and paging links', async () => {
    const html = await page(`/query?${custom}&offset=100`)
    expect(html).toContain('Rows 101–200 of 230')
    expect(html).toContain('FROM &quot;request_log&quot;')
    expect(html).toContain(`href="/query?${custom.replace(/&/g, '&amp;')}"`) // previous page: offset 0
    // Next: rows after this page's last one (keyset), numbered from 201.
    const next = html.match(/href="(\/query\?[^"]*offset=200[^"]*)"/)?.[1].replace(/&amp;/g, '&')
    expect(next).toMatch(/&cursor=2026-01-10T02%3A30%3A00\.000000Z%7E\d+$/)
    const last = await page(next!)
    expect(last).toContain('Rows 201–230 of 230')
    expect(last).toContain('>qa-29<')
    expect(last).not.toContain('>qa-30<')
  })

  it('renders sorted rows with aria-sort, and the histogram of the range above them', async () => {
    const html = (await page(`/query?${custom}&sort=-duration_ms&limit=25`)).replaceAll('<!-- -->', '')
    expect(html).toMatch(/<th scope="col" aria-sort="descending"><a [^>]*data-sort="duration_ms"/)
    expect(html).toContain('ORDER BY &quot;duration_ms&quot; DESC, &quot;time&quot; DESC, &quot;id&quot; DESC')
    expect(html).toMatch(/data-testid="histogram-total">230</)
    // 24 hours: 15-minute buckets, three rows in each from 00:00 to 19:00, read from the rollup.
    expect(html).toContain('15 min buckets · from the rollup')
    expect(html).toContain('aria-label="Narrow to 2026-01-10 19:00:00 UTC, 2 rows"')
  })

  it('shows a rejected filter as an error, not a failure', async () => {
    const html = await page(`/query?${custom}&filter=${encodeURIComponent('secret_column = 1')}`)
    expect(html).toContain('The query was not run')
    expect(html).toContain('secret_column')
  })

  it('shows an empty state', async () => {
    expect(await page('/query?dataset=dns&range=custom&from=2026-01-10&to=2026-01-10')).toContain('No rows match this range and filter.')
  })

  it('renders the dashboard panels', async () => {
    const html = await page(`/query/dashboard?${custom}`)
    for (const title of ['Rows over time', 'Duration and error rate', 'Responses by status', 'Top routes']) expect(html).toContain(title)
  })

  it('says what the export holds and links it only when rows match', async () => {
    expect(await page(`/query?${custom}`)).toContain('Export the newest 200 of 230 matching rows (QUERY_EXPORT_MAX_ROWS), all 15 columns')
    expect(await page(`/query?${custom}&filter=status+%3E%3D+500`)).toContain(`Export all ${ERRORS} matching rows, all 15 columns`)
    expect(await page(`/query?${custom}&filter=status+%3D+1`)).not.toContain('/query/export')
  })

  it('shows a malformed parameter as a sentence, and the page with defaults', async () => {
    const html = await page(`/query?${custom}&limit=abc`)
    expect(html).toContain('“abc” is not a number of rows per page; showing 100.')
    expect(html).toContain('Rows 1–100 of 230')
    expect(html).not.toContain('expected number')
  })

  it('exports every matching row as CSV (newest first, up to QUERY_EXPORT_MAX_ROWS), with a byte-order mark and formulas defused', async () => {
    // The page's limit and offset do not narrow an export.
    const res = await call(`${app.url}/query/export?${custom}&limit=25&offset=100`)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="requests-20260110T000000Z-20260111T000000Z.csv"')
    expect(res.headers.get('x-export-max-rows')).toBe('200')
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const lines = new TextDecoder().decode(bytes.slice(3)).trim().split('\n')
    expect(lines[0]).toBe(
      'time,request_id,method,route,query,status,duration_ms,client_ip,country,user_agent,referrer,api_key_present,rate_limited,mcp_tool,demo',
    )
    expect(lines).toHaveLength(201)
    expect(lines[1]).toContain(`'=HYPERLINK`)
    expect(lines[2]).toMatch(/^2026-01-10T19:00:00.000Z,qa-228,GET,\/api\/r3,,200,229,198.51.100.0,,curl\/8.7.1,,false,false,,false$/)
    expect(lines[200]).toMatch(/^[^,]+,qa-30,/)
  })

  it('exports NDJSON of the chosen columns and the filter', async () => {
    const res = await call(`${app.url}/query/export?${custom}&format=ndjson&cols=status,request_id&filter=status+%3E%3D+500`)
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8')
    const rows = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(rows).toHaveLength(ERRORS)
    expect(rows[0]).toEqual({ request_id: 'qa-220', status: 503 })
  })

  it.each([
    ['format=xml', /format/],
    ['filter=nope+%3D+1', /nope/],
    ['cols=secret', /“secret” is not a column/],
  ])('refuses an export with %s (400, before any row is sent)', async (extra, message) => {
    const res = await call(`${app.url}/query/export?${custom}&${extra}`)
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toMatch(message)
  })
})

describe(`query facets and group-by (${driverName})`, () => {
  const routes = ROWS.reduce((m, r) => m.set(r.route, (m.get(r.route) ?? 0) + 1), new Map<string, number>())

  it('POST facets counts each categorical column over the range from the rollup, hour-only ones too when their capped lists left nothing out', async () => {
    const res = await post('facets', { dataset: 'requests', dateFrom: DAY, dateTo: DAY })
    expect(res.status).toBe(200)
    const body = await res.json()
    const facet = (column: string) => body.facets.find((f: { column: string }) => f.column === column)
    expect(facet('status')).toMatchObject({
      source: 'rollup',
      total: 230,
      distinct: 2,
      values: [
        { value: 200, count: 230 - ERRORS, share: (230 - ERRORS) / 230 },
        { value: 503, count: ERRORS, share: ERRORS / 230 },
      ],
    })
    // route keeps capped per-hour top lists in the rollup; five routes fit, so they are exact there.
    expect(facet('route').source).toBe('rollup')
    expect(Object.fromEntries(facet('route').values.map((v: { value: string; count: number }) => [v.value, v.count]))).toEqual(Object.fromEntries(routes))
    expect(body.sample).toBeNull()
    expect((await post('facets', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'nope = 1' })).status).toBe(400)
  })

  it('POST facets under a filter the rollup cannot answer says it counted a sample', async () => {
    const body = await (await post('facets', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: 'duration_ms > 200' })).json()
    expect(body.sample).toEqual({ limit: 10_000, rows: 30, complete: true, matching: 30 })
    expect(body.facets.find((f: { column: string }) => f.column === 'status')).toMatchObject({
      source: 'sample',
      total: 30,
      values: [
        { value: 200, count: 27 },
        { value: 503, count: 3 },
      ],
    })
  })

  it('POST group-by groups with count and error rate, and answers 400 for a column it cannot group by', async () => {
    const res = await post('group-by', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['status'], sort: 'error_rate' })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toMatchObject({ source: 'rollup', groupCount: 2, total: 230, omitted: ['p50', 'p95'] })
    for (const g of body.groups) {
      const rows = ROWS.filter((r) => r.status === g.values[0])
      expect(g).toMatchObject({ count: rows.length, errors: rows.filter((r) => r.status >= 500).length })
    }
    // route is hour-only in the rollup (capped top lists); nothing was left out, so from the rollup.
    const byRoute = await (await post('group-by', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['route'], sort: 'error_rate' })).json()
    expect(byRoute).toMatchObject({ source: 'rollup', groupCount: 5, total: 230 })
    for (const g of byRoute.groups) {
      const rows = ROWS.filter((r) => r.route === g.values[0])
      expect(g).toMatchObject({ count: rows.length, errors: rows.filter((r) => r.status >= 500).length })
    }
    const rows = await (await post('group-by', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['route', 'status'], rows: true })).json()
    expect(rows.source).toBe('rows')
    expect(rows.groups.reduce((t: number, g: { count: number }) => t + g.count, 0)).toBe(230)
    expect((await post('group-by', { dataset: 'requests', dateFrom: DAY, dateTo: DAY, by: ['time'] })).status).toBe(400)
  })

  const page = async (p: string) => {
    const res = await call(`${app.url}${p}`)
    expect(res.status).toBe(200)
    return (await res.text()).replaceAll('<!-- -->', '')
  }
  const custom = `dataset=requests&range=custom&from=${DAY}&to=${DAY}`

  it('renders the top values beside the rows, with = and ≠ links that add to the filter', async () => {
    const html = await page(`/query?${custom}`)
    expect(html).toContain('Top values')
    expect(html).toContain('Exact counts over the whole range, from the rollup.')
    expect(html).toContain(`data-testid="facet-value" data-count="${ERRORS}"`)
    expect(html).toContain(`href="/query?${custom.replace(/&/g, '&amp;')}&amp;filter=%22status%22+%3D+503"`)
    expect(html).toContain(`href="/query?${custom.replace(/&/g, '&amp;')}&amp;filter=%22status%22+%21%3D+503"`)
  })

  it('renders the patterns under the rows only when asked for, each with a Filter link', async () => {
    const plain = await page(`/query?${custom}`)
    expect(plain).toContain('data-testid="patterns-open"')
    expect(plain).not.toContain('data-testid="patterns-table"')
    const html = await page(`/query?${custom}&patterns=user_agent`)
    expect(html).toContain('data-testid="patterns-table"')
    expect(html).toContain('curl/&lt;num&gt;')
    expect(html).toContain(`href="/query?${custom.replace(/&/g, '&amp;')}&amp;filter=%22user_agent%22+LIKE+%27curl%2F%25%27&amp;patterns=user_agent"`)
  })

  it('renders the group-by page with each group linking to its rows, and the SQL', async () => {
    const html = await page(`/query/group?${custom}&by=status`)
    expect(html).toMatch(/data-testid="group-count">2</)
    expect(html).toContain('from <span data-testid="group-source">the rollup</span>')
    expect(html).toContain(`href="/query?${custom.replace(/&/g, '&amp;')}&amp;filter=%22status%22+%3D+503"`)
    expect(html).toContain('FROM (SELECT * FROM &quot;request_log_rollup&quot;')
    const byRoute = await page(`/query/group?${custom}&by=route`)
    expect(byRoute).toMatch(/data-testid="group-count">5</)
    expect(byRoute).toContain(`href="/query?${custom.replace(/&/g, '&amp;')}&amp;filter=%22route%22+%3D+%27%2Fapi%2Fr0%27"`)
    const two = await page(`/query/group?${custom}&by=route,status&gsort=-p95`)
    expect(two).toContain('from <span data-testid="group-source">the rows</span>')
    expect(two).toContain('aria-sort="descending"')
  })
})

describe(`hostile filters and links from other sites (${driverName})`, () => {
  const nestedReplace = (levels: number) => {
    let expr = 'route'
    for (let i = 0; i < levels; i++) expr = `replace(${expr}, '/', '//////////')`
    return `${expr} LIKE '%x%'`
  }

  it.each([9, 8])('answers a filter nesting replace() %i levels with 400 and the reason, never 500', async (levels) => {
    for (const route of ['query', 'dashboard']) {
      const res = await post(route, { dataset: 'requests', dateFrom: DAY, dateTo: DAY, filter: nestedReplace(levels) })
      expect(res.status).toBe(400)
      const body = await res.json()
      expect(body.error.code).toBe('invalid_input')
      expect(body.error.message).toContain('replace() could make a value of up to')
    }
  })

  it('still runs an ordinary filter with one replace()', async () => {
    const res = await query({ filter: "replace(route, '/api/', '') = 'r1'", limit: 1 })
    expect(res.status).toBe(200)
    expect((await res.json()).count).toBe(46)
  })

  const history = async () => (await (await call(`${app.url}/query/api/history`)).json()).history as Array<{ view: string; ranAt: string }>
  const filter = new URLSearchParams({ filter: "route = '/api/r2' AND duration_ms > 3" }).toString()
  const link = `/query?dataset=requests&range=custom&from=${DAY}&to=${DAY}&${filter}`
  // Only this run's history: on a real Postgres the table keeps earlier runs' entries of the same operator.
  const started = Date.now()
  const recorded = async (extra = '') =>
    (await history()).some((h) => Date.parse(h.ranAt) >= started - 1000 && h.view.includes(filter) && h.view.includes(extra))

  it.each(['cross-site', 'same-site'])(
    'shows a link opened from another site (%s) without running it or recording it, with a link that runs it',
    async (site) => {
      for (const path of [link, link.replace('/query?', '/query/dashboard?'), link.replace('/query?', '/query/group?') + '&by=status']) {
        const res = await call(`${app.url}${path}`, { headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate' } })
        expect(res.status).toBe(200)
        const html = (await res.text()).replaceAll('<!-- -->', '')
        expect(html).toContain('data-testid="confirm-run"')
        expect(html).toContain(`opened from another site</strong> (Sec-Fetch-Site: ${site})`)
        expect(html).toContain('<code data-testid="confirm-filter">route = &#x27;/api/r2&#x27; AND duration_ms &gt; 3</code>')
        // The same address, to be requested from this origin.
        expect(html).toContain(`href="${path.replaceAll('&', '&amp;').replaceAll("'", '&#x27;')}"`)
        expect(html).not.toContain('&quot;request_log&quot;') // no statement ran
        expect(html).not.toMatch(/Rows \d+–\d+ of/)
      }
      // Rendering is done; a run would have been recorded right after it (the same-origin case below waits for it).
      expect(await recorded()).toBe(false)
    },
  )

  it('refuses an export requested from another site', async () => {
    const res = await call(`${app.url}${link.replace('/query?', '/query/export?')}`, { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(res.status).toBe(403)
    expect((await res.json()).error.message).toContain('requested from another site')
  })

  it.each(['same-origin', 'none'])('runs the query at once for %s and records it', async (site) => {
    const res = await call(`${app.url}${link}&limit=${site === 'none' ? 7 : 8}`, { headers: { 'sec-fetch-site': site } })
    const html = (await res.text()).replaceAll('<!-- -->', '')
    expect(html).not.toContain('data-testid="confirm-run"')
    expect(html).toContain('&quot;request_log&quot;')
    expect(html).toMatch(/Rows 1–\d+ of 45/)
    const limit = `limit=${site === 'none' ? 7 : 8}`
    for (let i = 0; i < 100 && !(await recorded(limit)); i++) await new Promise((r) => setTimeout(r, 50))
    expect(await recorded(limit)).toBe(true)
  })
})

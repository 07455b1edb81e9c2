import { expect, test, type APIRequestContext, type Page } from './fixtures'
import config from '../../playwright.config'

// The numbers the query pages show, checked against numbers known without the application.
//
// The e2e server owns its PGlite directory (one process per directory), so a test cannot open the
// database beside it to count with SQL of its own. Counting through the application's own JSON API
// would check the application against itself. Instead each run writes rows it knows: a Logpush batch
// of 60 gateway HTTP rows through the ingest endpoint (the way real rows arrive), and 12 API
// requests with a user agent of its own, which the request log records. The expected counts, rates,
// per-hour histogram and sort order are computed here from those rows; the pages must show exactly
// them, whether they read the raw rows or the rollups written beside them. A unique host and user
// agent per run keep the demo rows and earlier runs out of the filter.

const HOUR = 3_600_000
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const HOST = `numbers-${RUN}.e2e.test`
const AGENT = `numbers-e2e/${RUN}`
// 60 rows, 7 minutes apart, starting on an hour 30 hours ago: well inside "Last 7 days".
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR
const ROWS = Array.from({ length: 60 }, (_, i) => {
  const action = i % 5 === 0 ? 'block' : i % 7 === 0 ? 'bypass' : 'allow'
  return { time: BASE + i * 7 * 60_000, action, status: action === 'block' ? 403 : i % 11 === 0 ? 404 : 200 }
})
const tally = <T>(values: T[]) => values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<T, number>())
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
const fmt = (n: number) => new Intl.NumberFormat('en').format(n)

const HEALTHY = 9
const MISSING = 3

test.describe.configure({ mode: 'serial' })

const BASE_URL = config.use!.baseURL!

test.beforeAll(async ({ playwright }) => {
  const request = await playwright.request.newContext({ baseURL: BASE_URL })
  const batch = ROWS.map((r, i) =>
    JSON.stringify({
      Datetime: new Date(r.time).toISOString(),
      Action: r.action,
      HTTPHost: HOST,
      HTTPStatusCode: r.status,
      HTTPMethod: 'GET',
      RequestID: `${RUN}-${i}`,
      URL: `https://${HOST}/${i}`,
      Email: 'numbers@example.com',
    }),
  ).join('\n')
  const res = await request.post('/query/ingest/http', {
    headers: { 'x-logpush-secret': 'e2e-logpush-secret-0123456789abcdef', 'content-type': 'application/x-ndjson' },
    data: batch,
  })
  expect(res.status(), await res.text()).toBe(200)
  expect(await res.json()).toMatchObject({ inserted: ROWS.length, malformed: 0 })

  for (let i = 0; i < HEALTHY; i++) expect((await request.get('/api/health', { headers: { 'user-agent': AGENT } })).status()).toBe(200)
  for (let i = 0; i < MISSING; i++) expect((await request.get(`/api/no-such-route-${RUN}`, { headers: { 'user-agent': AGENT } })).status()).toBe(404)
  // The request log is written in batches every few seconds: wait until all 12 are stored.
  await expect.poll(() => requestsStored(request), { timeout: 30_000 }).toBe(HEALTHY + MISSING)
  await request.dispose()
})

async function requestsStored(request: APIRequestContext): Promise<number> {
  const from = new Date(Date.now() - HOUR).toISOString()
  const to = new Date(Date.now() + HOUR).toISOString()
  const res = await request.post('/query/api/query', {
    headers: { origin: BASE_URL },
    data: { dataset: 'requests', dateFrom: from, dateTo: to, filter: `user_agent = '${AGENT}'`, limit: 1 },
  })
  return res.ok() ? (await res.json()).count : -1
}
/** A page URL: `view` is the dataset and the rest of the query string, then the filter. */
const filtered = (path: string, filter: string, view: string) => `${path}?dataset=${view}&filter=${encodeURIComponent(filter)}`

async function bars(page: Page, panel: string): Promise<Map<string, number>> {
  const items = page.getByRole('region', { name: panel }).getByRole('listitem')
  await expect(items.first()).toBeVisible()
  const out = new Map<string, number>()
  for (const item of await items.all())
    out.set((await item.getByRole('link').textContent())!, Number((await item.locator('span').last().textContent())!.replace(/,/g, '')))
  return out
}

test('rows page: the count, the histogram total and every bucket, and the sorted order are the rows written', async ({ page }) => {
  await page.goto(filtered('/query', `http_host = '${HOST}'`, 'http&range=7d&cols=datetime,action,http_status_code&sort=action'))
  await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${ROWS.length} of ${ROWS.length}`)
  await expect(page.getByTestId('histogram-total')).toHaveText(String(ROWS.length))

  // Per hour (7 days make 1-hour buckets): the table under the chart, bucket by bucket.
  const expected = [...tally(ROWS.map((r) => Math.floor(r.time / HOUR) * HOUR))].map(([start, n]) => [utc(start), fmt(n)])
  await page.getByText(/^Histogram as a table/).click()
  const table = page.getByTestId('histogram-table')
  const shown = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))
  expect(shown).toEqual(expected)

  // Sorted by action, ascending; ties oldest first.
  const actions = await page.getByTestId('rows').locator('td[data-col="action"]').allTextContents()
  const order = [...ROWS].sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : a.time - b.time))
  expect(actions).toEqual(order.map((r) => r.action))
  const statuses = await page.getByTestId('rows').locator('td[data-col="http_status_code"]').allTextContents()
  expect(statuses.map(Number)).toEqual(order.map((r) => r.status))
  const times = await page.getByTestId('rows').locator('td[data-col="datetime"]').allTextContents()
  expect(times).toEqual(order.map((r) => utc(r.time)))
})

test('dashboard: the breakdowns and the top list add up to the rows written', async ({ page }) => {
  await page.goto(filtered('/query/dashboard', `http_host = '${HOST}'`, 'http&range=7d'))
  expect(await bars(page, 'Actions')).toEqual(tally(ROWS.map((r) => r.action)))
  expect(await bars(page, 'Status codes')).toEqual(new Map([...tally(ROWS.map((r) => r.status))].map(([k, v]) => [String(k), v])))
  expect(await bars(page, 'Top hosts')).toEqual(new Map([[HOST, ROWS.length]]))
})

test('dashboard and rows: the request count and error rates of the requests made', async ({ page }) => {
  const filter = `user_agent = '${AGENT}'`
  await page.goto(filtered('/query/dashboard', filter, 'requests&range=7d'))
  const latency = page.getByRole('region', { name: 'Duration and error rate' })
  await expect(latency.getByText('Requests', { exact: true }).locator('..').locator('strong')).toHaveText(String(HEALTHY + MISSING))
  await expect(latency.getByTestId('error-rate')).toHaveText('0.00 %')
  // 3 of 12.
  await expect(latency.getByTestId('client-error-rate')).toHaveText('25.00 %')
  expect(await bars(page, 'Responses by status')).toEqual(
    new Map([
      ['200', HEALTHY],
      ['404', MISSING],
    ]),
  )

  await page.goto(filtered('/query', filter, 'requests&range=7d&cols=time,status,route'))
  await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–12 of 12`)
  await expect(page.getByTestId('histogram-total')).toHaveText('12')
  expect(tally(await page.getByTestId('rows').locator('td[data-col="status"]').allTextContents())).toEqual(
    new Map([
      ['200', HEALTHY],
      ['404', MISSING],
    ]),
  )
})

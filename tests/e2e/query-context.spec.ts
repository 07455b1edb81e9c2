import { mkdirSync } from 'node:fs'
import { axe, expect, ingestHttp, test, type Page } from './fixtures'

// Free-text search, first/last seen per group, rows in context and change points, checked against 40 gateway HTTP
// rows this run writes through Logpush, two hosts of their own taking turns. Expected rows, times
// and neighbours are computed here from those rows. Driven at 1440 px and 390 px, light and dark,
// with axe. Screenshots go to test-results/context/.

const MINUTE = 60_000
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const HOSTS = [`ctx-a-${RUN}.e2e.test`, `ctx-b-${RUN}.e2e.test`]
const POLICY = `context-${RUN}`
// Whole seconds, a few hours ago, 3 minutes apart: every row has its own time.
const BASE = Math.floor(Date.now() / MINUTE) * MINUTE - 5 * 60 * MINUTE
const ROWS = Array.from({ length: 40 }, (_, i) => ({
  time: BASE + i * 3 * MINUTE,
  host: HOSTS[i % 3 === 0 ? 1 : 0],
  requestId: `${RUN}-${String(i).padStart(2, '0')}`,
  path: i % 5 === 0 ? `/Needle-${RUN}/${i}` : `/hay/${i}`,
}))
const FILTER = `policy_name = '${POLICY}'`
const SHOTS = 'test-results/context'
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
const rowsUrl = (extra = '') => `/query?dataset=http&range=24h&limit=50&filter=${encodeURIComponent(FILTER)}${extra}`

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ playwright }) => {
  mkdirSync(SHOTS, { recursive: true })
  const batch = ROWS.map((r) =>
    JSON.stringify({
      Datetime: new Date(r.time).toISOString(),
      Action: 'allow',
      HTTPHost: r.host,
      PolicyName: POLICY,
      HTTPStatusCode: 200,
      HTTPMethod: 'GET',
      RequestID: r.requestId,
      URL: `https://${r.host}${r.path}`,
      Email: 'context@example.com',
    }),
  ).join('\n')
  await ingestHttp(playwright, batch, ROWS.length)
})

/** The request_id column of the rows shown, top to bottom. */
const requestIds = (page: Page) => page.getByTestId('rows').locator('tbody td[data-col="request_id"]').allTextContents()

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test.describe(`${width} px, ${scheme}`, () => {
      test.use({ viewport: { width, height }, colorScheme: scheme })

      test('rows around a row: its neighbours in time, the row marked; ↔ Around keeps one field', async ({ page }) => {
        await page.goto(rowsUrl('&cols=datetime,http_host,request_id'))
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${ROWS.length} of ${ROWS.length}`)
        const newestFirst = [...ROWS].reverse()
        const at = 20 // newestFirst[20] = ROWS[19]
        await page.getByRole('button', { name: `Details of row ${at + 1}`, exact: true }).click()
        await page.getByTestId('around-link').click()
        await expect(page).toHaveURL(/around=/)
        const context = page.getByTestId('context')
        await expect(context).toContainText(`Rows around the row at ${utc(newestFirst[at].time)}`)
        await expect(page.getByTestId('context-newer')).toHaveText('10')
        await expect(page.getByTestId('context-older')).toHaveText('10')
        await expect.poll(() => requestIds(page)).toEqual(newestFirst.slice(at - 10, at + 11).map((r) => r.requestId))
        const marked = page.getByTestId('rows').locator('tbody tr[aria-current="true"]')
        await expect(marked).toHaveCount(1)
        await expect(marked.locator('td[data-col="request_id"]')).toHaveText(newestFirst[at].requestId)
        await page.screenshot({ path: `${SHOTS}/around-${width}-${scheme}.png`, fullPage: width > 1000 })
        await axe(page)

        // The same row's context with its host only.
        await page.getByRole('button', { name: 'Details of row 11', exact: true }).click()
        await page.getByRole('link', { name: 'Rows around this one with the same http_host' }).click()
        await expect(page).toHaveURL(/filter=%22http_host%22/)
        const sameHost = newestFirst.filter((r) => r.host === newestFirst[at].host)
        const i = sameHost.indexOf(newestFirst[at])
        await expect(page.getByTestId('context-older')).toHaveText(String(Math.min(10, sameHost.length - 1 - i)))
        await expect.poll(() => requestIds(page)).toEqual(sameHost.slice(Math.max(0, i - 10), i + 11).map((r) => r.requestId))
        await page.getByTestId('context-back').click()
        await expect(page).not.toHaveURL(/around=/)
        await expect(page.getByTestId('row-count')).toBeVisible()
      })
    })
  }
}

test.describe('search and first/last seen', () => {
  test.use({ viewport: { width: 1440, height: 900 } })

  test('search text finds the rows with the text in any text column, whatever its case, and shows as a filter clause', async ({ page }) => {
    await page.goto(rowsUrl())
    await page.getByLabel('Search text').fill(`needle-${RUN.toUpperCase()}`)
    await page.getByRole('button', { name: 'Run' }).click()
    const expected = ROWS.filter((r) => r.path.startsWith('/Needle'))
    await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${expected.length} of ${expected.length}`)
    await expect(page.getByLabel('Filter (SQL WHERE fragment)')).toHaveValue(new RegExp(`"url" ILIKE '%needle-${RUN.toUpperCase()}%'`))
    await expect(page.getByLabel('Search text')).toHaveValue('')
    await axe(page)
  })

  test("the filter completes a column's frequent values after `column =`, from the keyboard", async ({ page }) => {
    await page.goto('/query?dataset=requests&range=7d')
    const filter = page.getByLabel('Filter (SQL WHERE fragment)')
    await filter.focus()
    // status is a rollup column: its values come from the facets of the range.
    await page.keyboard.type('status = 20')
    const list = page.getByRole('listbox', { name: 'Values of status' })
    await expect(list.getByRole('option').first()).toHaveText(/^200[\d,]+ rows$/)
    await page.keyboard.press('Enter')
    await expect(filter).toHaveValue('status = 200')
    await expect(list).toBeHidden()
    await page.keyboard.press('Control+Enter')
    await expect(page).toHaveURL(/filter=status/)
  })

  test('group by host: first and last seen of each, exact from the rows', async ({ page }) => {
    await page.goto(`/query/group?dataset=http&range=24h&filter=${encodeURIComponent(FILTER)}&by=http_host&rows=1&gsort=first_seen`)
    await expect(page.getByTestId('group-source')).toHaveText('the rows')
    const rows = page.getByTestId('group-row')
    await expect(rows).toHaveCount(HOSTS.length)
    const firstSeen = (host: string) => Math.min(...ROWS.filter((r) => r.host === host).map((r) => r.time))
    const lastSeen = (host: string) => Math.max(...ROWS.filter((r) => r.host === host).map((r) => r.time))
    // Sorted by first seen, ascending: the host seen first leads.
    const order = [...HOSTS].sort((a, b) => firstSeen(a) - firstSeen(b))
    for (const [n, host] of order.entries()) {
      const row = rows.nth(n)
      await expect(row.getByTestId('group-link')).toHaveText(host)
      await expect(row.locator('td[data-measure="first_seen"]')).toHaveText(utc(firstSeen(host)))
      await expect(row.locator('td[data-measure="last_seen"]')).toHaveText(utc(lastSeen(host)))
    }
    await page.screenshot({ path: `${SHOTS}/group-seen-1440.png`, fullPage: true })
    await axe(page)
  })
})

test.describe('change points', () => {
  test.use({ viewport: { width: 1440, height: 900 } })
  // A 24-hour range has 15-minute buckets: one row in each for 16 hours, and 30 more in one bucket 6 hours ago: a spike there.
  const SLOT = 15 * MINUTE
  const POLICY_SPIKE = `spike-${RUN}`
  const first = Math.floor(Date.now() / SLOT) * SLOT - 16 * 60 * MINUTE
  const spikeAt = Math.floor(Date.now() / SLOT) * SLOT - 6 * 60 * MINUTE
  const times = [...Array.from({ length: 64 }, (_, i) => first + i * SLOT + 5 * MINUTE), ...Array.from({ length: 30 }, (_, i) => spikeAt + 60_000 + i * 15_000)]

  test('a spike in the rows per bucket is marked on the histogram and listed, and its link narrows to it', async ({ page, playwright }) => {
    const batch = times.map((t, i) =>
      JSON.stringify({ Datetime: new Date(t).toISOString(), Action: 'allow', HTTPHost: HOSTS[0], PolicyName: POLICY_SPIKE, RequestID: `${RUN}-spike-${i}` }),
    )
    await ingestHttp(playwright, batch.join('\n'), times.length)

    await page.goto(`/query?dataset=http&range=24h&filter=${encodeURIComponent(`policy_name = '${POLICY_SPIKE}'`)}`)
    await expect(page.getByTestId('histogram-total')).toHaveText(String(times.length))
    await expect(page.getByTestId('histogram')).toContainText('15 min buckets')
    const points = page.getByTestId('change-point')
    await expect(points).toHaveCount(1)
    await expect(points).toHaveAttribute('data-kind', 'spike')
    await expect(points).toContainText(`▲ spike at ${utc(spikeAt)} (31 rows, usually 1)`)
    await page.getByTestId('histogram').screenshot({ path: `${SHOTS}/change-points-1440.png` })
    await axe(page)
    await points.getByRole('link').click()
    await expect(page.getByTestId('row-count')).toHaveText('Rows 1–31 of 31')
  })
})

test.describe('dashboard auto-refresh', () => {
  test.use({ viewport: { width: 1440, height: 900 } })

  test('the interval goes into the URL and the panels are drawn again on the server at it', async ({ page }) => {
    test.setTimeout(120_000)
    await page.goto('/query/dashboard?dataset=requests&range=1h')
    await page.getByTestId('refresh-select').selectOption('30s')
    await expect(page).toHaveURL(/refresh=30s/)
    const stamp = page.getByTestId('refreshed-at')
    await expect(stamp).toHaveText(/^updated \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/)
    const first = await stamp.textContent()
    // One tick later (30 s) the server has drawn the page again.
    await expect.poll(() => stamp.textContent(), { timeout: 50_000, intervals: [2_000] }).not.toBe(first)
    await axe(page)
    await page.getByTestId('refresh-select').selectOption('')
    await expect(page).not.toHaveURL(/refresh=/)
    await expect(stamp).toHaveText('')
  })
})

import AxeBuilder from '@axe-core/playwright'
import { expect, ingestHttp, test, type Page } from './fixtures'

// Compare with an earlier window and split by a column, on the rows page and the dashboard, at
// 1440 px and 390 px, light and dark. As in query-numbers.spec.ts, the run writes rows it knows
// (a Logpush batch of gateway HTTP rows under a host of its own, in a 3-hour window and the same
// window a day earlier) and every figure checked is computed here from those rows.

const HOUR = 3_600_000
const DAY = 24 * HOUR
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const HOST = `compare-${RUN}.e2e.test`
// The window: 3 whole hours starting 30 hours ago; the baseline, the same hours a day before.
const FROM = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR
const TO = FROM + 3 * HOUR
const row = (time: number, action: string, status: number) => ({ time, action, status })
// Now: 45 rows 4 minutes apart, blocks every 3rd (403), 5xx every 5th. Before: 30 rows 6 minutes apart, blocks every 10th.
const NOW = Array.from({ length: 45 }, (_, i) => row(FROM + i * 4 * 60_000, i % 3 === 0 ? 'block' : 'allow', i % 3 === 0 ? 403 : i % 5 === 0 ? 502 : 200))
const BEFORE = Array.from({ length: 30 }, (_, i) => row(FROM - DAY + i * 6 * 60_000, i % 10 === 0 ? 'block' : 'allow', i % 10 === 0 ? 403 : 200))
const fmt = (n: number) => new Intl.NumberFormat('en').format(n)
const wall = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
const FILTER = `http_host = '${HOST}'`
const VIEW = `dataset=http&range=custom&from=${encodeURIComponent(wall(FROM))}&to=${encodeURIComponent(wall(TO))}&filter=${encodeURIComponent(FILTER)}`

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ playwright }) => {
  const batch = [...NOW, ...BEFORE]
    .map((r, i) =>
      JSON.stringify({
        Datetime: new Date(r.time).toISOString(),
        Action: r.action,
        HTTPHost: HOST,
        HTTPStatusCode: r.status,
        HTTPMethod: 'GET',
        RequestID: `${RUN}-${i}`,
        URL: `https://${HOST}/${i}`,
        Email: 'compare@example.com',
      }),
    )
    .join('\n')
  await ingestHttp(playwright, batch, NOW.length + BEFORE.length)
})

/** formatChange's text, computed here. */
const change = (now: number, then: number) =>
  then === 0 ? (now === 0 ? '±0 %' : 'new') : `${now >= then ? '+' : '−'}${(Math.abs((now - then) / then) * 100).toFixed(1).replace(/\.0$/, '')} %`
const share = (rows: Array<{ action: string }>, action: string) => rows.filter((r) => r.action === action).length / rows.length
const points = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta * 100).toFixed(1)} pt`

async function checkRowsPage(page: Page) {
  await page.goto(`/query?${VIEW}&limit=25&compare=day&split=http_status_code_class`)
  await expect(page.getByTestId('histogram-total')).toHaveText(fmt(NOW.length))
  // The baseline: the same window a day earlier.
  await expect(page.getByTestId('baseline-total')).toHaveText(fmt(BEFORE.length))
  // Split by status class: 2xx, 4xx, 5xx with their counts, largest first.
  const classes = new Map<string, number>()
  for (const r of NOW) classes.set(`${Math.floor(r.status / 100)}xx`, (classes.get(`${Math.floor(r.status / 100)}xx`) ?? 0) + 1)
  const before = new Map<string, number>()
  for (const r of BEFORE) before.set(`${Math.floor(r.status / 100)}xx`, (before.get(`${Math.floor(r.status / 100)}xx`) ?? 0) + 1)
  // Each class with how it moved from a day earlier (every class is listed there, so a missing one had no rows).
  const expected = [...classes.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k} ${fmt(n)} (${change(n, before.get(k) ?? 0)} from ${fmt(before.get(k) ?? 0)})`)
  await expect(page.getByTestId('split-series')).toHaveText(expected.map((e, i) => (i ? `, ${e}` : e)))
  // What changed, action: block's and allow's shares moved by the same amount, in opposite directions.
  const action = page.locator('[data-testid="changes-table"][data-column="action"]')
  const delta = share(NOW, 'block') - share(BEFORE, 'block')
  await expect(action.getByTestId('change-row')).toHaveCount(2)
  // Equal moves (exact in the database) are listed by value: allow, then block.
  await expect(action.getByRole('link')).toHaveText(['allow', 'block'])
  await expect(action.getByTestId('change-delta')).toHaveText([points(-delta), points(delta)])
  await expect(action.getByRole('link', { name: 'block' })).toBeVisible()
}

for (const scheme of ['light', 'dark'] as const) {
  for (const width of [1440, 390]) {
    test(`rows page: compare a day earlier and split by status class (${width} px, ${scheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 })
      await checkRowsPage(page)
      await page.screenshot({ path: `test-results/e2e/compare-rows-${width}-${scheme}.png`, fullPage: true })
      const { violations } = await new AxeBuilder({ page }).analyze()
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)).toEqual([])
    })

    test(`dashboard: compare the previous period and split by action (${width} px, ${scheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setViewportSize({ width, height: width === 1440 ? 900 : 844 })
      await page.goto(`/query/dashboard?${VIEW}&compare=previous&split=action`)
      await expect(page.getByTestId('compare-controls')).toBeVisible()
      await expect(page.getByTestId('compare-select')).toHaveValue('previous')
      await expect(page.getByTestId('split-select')).toHaveValue('action')
      await expect(page.getByTestId('timeseries-chart').first()).toBeVisible()
      await page.screenshot({ path: `test-results/e2e/compare-dashboard-${width}-${scheme}.png`, fullPage: true })
      if (width === 1440) {
        // A day earlier: every list and figure says how it moved from the same hours the day before.
        await page.goto(`/query/dashboard?${VIEW}&compare=day`)
        const actions = page.getByRole('region', { name: 'Actions', exact: true })
        const count = (rows: typeof NOW, action: string) => rows.filter((r) => r.action === action).length
        for (const action of ['allow', 'block'])
          await expect(
            actions
              .getByRole('listitem')
              .filter({ hasText: new RegExp(`^${action}`) })
              .getByTestId('panel-change'),
          ).toHaveText(change(count(NOW, action), count(BEFORE, action)))
      }
      const { violations } = await new AxeBuilder({ page }).analyze()
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)).toEqual([])
    })
  }
}

test('the controls put compare and split in the URL (submitted from the keyboard)', async ({ page }) => {
  await page.goto(`/query?${VIEW}&limit=25`)
  await page.getByTestId('compare-select').selectOption('previous')
  await page.getByTestId('split-select').selectOption('action')
  await page.getByRole('button', { name: 'Apply' }).focus()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/compare=previous/)
  await expect(page).toHaveURL(/split=action/)
  await expect(page.getByTestId('histogram-total')).toHaveText(fmt(NOW.length))
})

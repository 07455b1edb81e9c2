import { mkdirSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { axe, expect, ingestHttp, test, type Page } from './fixtures'
import config from '../../playwright.config'

// Facets beside the rows and the group-by page, checked against rows this run writes: a Logpush
// batch of 60 gateway HTTP rows with a policy and a host of their own (the way real rows arrive). The expected
// counts and shares are computed here from those rows. Driven at 1440 px and 390 px, light and
// dark, with axe (no serious or critical violation), and one task by keyboard only. Screenshots go
// to test-results/facets/.

const HOUR = 3_600_000
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const HOST = `facets-${RUN}.e2e.test`
const POLICY = `facets-${RUN}`
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR
const ROWS = Array.from({ length: 60 }, (_, i) => {
  const action = i % 5 === 0 ? 'block' : i % 7 === 0 ? 'bypass' : 'allow'
  return { time: BASE + i * 7 * 60_000, action, status: action === 'block' ? 403 : i % 11 === 0 ? 502 : 200, method: i % 4 === 0 ? 'POST' : 'GET' }
})
const tally = <T>(values: T[]) => values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<T, number>())
const fmt = (n: number) => new Intl.NumberFormat('en').format(n)
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(2).replace(/(\.\d{2}\d*?)0+$/, '$1')} %`
// The filter is on the policy: a column the rollup keeps at full grain, so its own facet and
// grouping by it can be answered from the rollup.
const FILTER = `policy_name = '${POLICY}'`
const ROWS_URL = `/query?dataset=http&range=7d&limit=25&filter=${encodeURIComponent(FILTER)}`
const GROUP_URL = `/query/group?dataset=http&range=7d&filter=${encodeURIComponent(FILTER)}`
const SHOTS = 'test-results/facets'
const BASE_URL = config.use!.baseURL!

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ playwright }) => {
  mkdirSync(SHOTS, { recursive: true })
  const batch = ROWS.map((r, i) =>
    JSON.stringify({
      Datetime: new Date(r.time).toISOString(),
      Action: r.action,
      HTTPHost: HOST,
      PolicyName: POLICY,
      HTTPStatusCode: r.status,
      HTTPMethod: r.method,
      RequestID: `${RUN}-${i}`,
      URL: `https://${HOST}/${i}`,
      Email: 'facets@example.com',
    }),
  ).join('\n')
  await ingestHttp(playwright, batch, ROWS.length)
})

const facet = (page: Page, column: string) => page.locator(`[data-testid="facet"][data-column="${column}"]`)

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test.describe(`${width} px, ${scheme}`, () => {
      test.use({ viewport: { width, height }, colorScheme: scheme })

      test('facets: counts and shares of the rows written, = and ≠ narrow the rows', async ({ page }) => {
        await page.goto(ROWS_URL)
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–25 of ${ROWS.length}`)
        const facets = page.getByTestId('facets')
        await expect(facets).toBeVisible()
        // The policy facet (the filtered column) is exact from the rollup; the others are counted in
        // every matching row (fewer than the sample's limit): the rollup cannot filter them by policy.
        await expect(page.getByTestId('facets-source')).toContainText(`Counted in all ${ROWS.length} matching rows`)
        await expect(facet(page, 'policy_name')).toHaveAttribute('data-source', 'rollup')
        await expect(facet(page, 'http_host')).toHaveAttribute('data-source', 'sample')
        await expect(facet(page, 'http_host').getByTestId('facet-value')).toHaveAttribute('data-count', String(ROWS.length))
        for (const [column, counts] of [
          ['action', tally(ROWS.map((r) => r.action))],
          ['http_status_code', tally(ROWS.map((r) => r.status))],
          ['http_method', tally(ROWS.map((r) => r.method))],
        ] as const) {
          const items = facet(page, column).getByTestId('facet-value')
          await expect(items).toHaveCount(counts.size)
          for (const [value, count] of counts) {
            const item = items.filter({ hasText: new RegExp(`^${value}`) })
            await expect(item).toHaveAttribute('data-count', String(count))
            await expect(item).toContainText(`${fmt(count)} ${pct(count, ROWS.length)}`)
          }
        }
        await page.screenshot({ path: `${SHOTS}/rows-facets-${width}-${scheme}.png`, fullPage: width > 1000 })
        if (width < 1000) {
          await facets.scrollIntoViewIfNeeded()
          await page.screenshot({ path: `${SHOTS}/rows-facets-${width}-${scheme}-facets.png` })
        }
        await axe(page)

        const blocked = ROWS.filter((r) => r.action === 'block').length
        await facet(page, 'action').getByRole('link', { name: 'Filter action = block', exact: true }).click()
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${blocked} of ${blocked}`)
        await expect(page).toHaveURL(/filter=.*%22action%22(\+|%20)%3D(\+|%20)%27block%27/)
        await page.goBack()
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–25 of ${ROWS.length}`)
        await facet(page, 'action').getByRole('link', { name: 'Filter action ≠ block', exact: true }).click()
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–25 of ${ROWS.length - blocked}`)
        await expect(facet(page, 'action').getByTestId('facet-value')).toHaveCount(tally(ROWS.map((r) => r.action)).size - 1)
      })

      test('group by: two columns, error rate, sorting, and each group opens its rows', async ({ page }) => {
        await page.goto(`${GROUP_URL}&by=action,http_status_code`)
        const expected = tally(ROWS.map((r) => `${r.action} ${r.status}`))
        await expect(page.getByTestId('group-count')).toHaveText(String(expected.size))
        await expect(page.getByTestId('group-total')).toHaveText(String(ROWS.length))
        await expect(page.getByTestId('group-source')).toHaveText('the rows')
        const rows = page.getByTestId('group-row')
        await expect(rows).toHaveCount(expected.size)
        const counts = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())))
        for (const [action, status, count, errors, rate] of counts) {
          const matching = ROWS.filter((r) => r.action === action && String(r.status) === status)
          expect(Number(count)).toBe(matching.length)
          const fivexx = matching.filter((r) => r.status >= 500).length
          expect(Number(errors)).toBe(fivexx)
          expect(rate).toBe(pct(fivexx, matching.length))
        }
        // Largest first by default.
        const byCount = counts.map((c) => Number(c[2]))
        expect(byCount).toEqual([...byCount].sort((a, b) => b - a))
        await page.screenshot({ path: `${SHOTS}/group-${width}-${scheme}.png`, fullPage: true })
        await axe(page)
        if (width < 1000) {
          // The page itself does not scroll sideways: the table does, within its box, to its error columns.
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
          const rate = page.getByRole('columnheader', { name: 'Error rate' })
          await rate.scrollIntoViewIfNeeded()
          await expect(rate).toBeInViewport()
          const wrap = page.getByTestId('group-table').locator('xpath=..')
          expect(await wrap.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0)
          await expect(rows.first().getByTestId('group-link')).toBeInViewport()
          await page.screenshot({ path: `${SHOTS}/group-${width}-${scheme}-scrolled.png` })
        }

        // Sort by error rate, highest first: the 502s lead.
        await page.getByRole('link', { name: 'Error rate: sort descending' }).click()
        await expect(page.getByRole('columnheader', { name: 'Error rate' })).toHaveAttribute('aria-sort', 'descending')
        await expect(rows.first().locator('td').nth(1)).toHaveText('502')

        const first = await rows.first().locator('td').allTextContents()
        await rows.first().getByTestId('group-link').click()
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${first[2]} of ${first[2]}`)
        await expect(page).toHaveURL(/%22http_status_code%22(\+|%20)%3D(\+|%20)502/)
      })

      if (width < 1000)
        test('a quick filter closes the query form on a phone, so the results come first', async ({ page }) => {
          await page.goto(ROWS_URL)
          const toggle = page.getByTestId('controls-toggle')
          await expect(toggle).toHaveAttribute('aria-expanded', 'false')
          await toggle.click()
          await expect(toggle).toHaveAttribute('aria-expanded', 'true')
          await page.getByRole('group', { name: 'Quick filters' }).getByRole('link').first().click()
          await expect(page).toHaveURL(/filter=/)
          await expect(toggle).toHaveAttribute('aria-expanded', 'false')
          await expect(page.locator('#results')).toBeInViewport()
        })
    })
  }
}

test.describe('one column from the rollup', () => {
  test.use({ viewport: { width: 1440, height: 900 } })
  test('groups by the filtered rollup column from the rollup, and offers the rows for what it lacks', async ({ page }) => {
    await page.goto(`${GROUP_URL}&by=policy_name`)
    await expect(page.getByTestId('group-source')).toHaveText('the rollup')
    await expect(page.getByTestId('group-row')).toHaveCount(1)
    await expect(page.getByTestId('group-row').locator('td').nth(1)).toHaveText(String(ROWS.length))
  })

  test('a range changed in the query form and not yet run is the one Group submits', async ({ page }) => {
    await page.goto(`${GROUP_URL}&by=action`)
    await expect(page.getByTestId('group-count')).toBeVisible()
    await page.getByRole('form', { name: 'Query' }).getByLabel('Range').selectOption('30d')
    await page.getByRole('form', { name: 'Group by' }).getByLabel('Then by').selectOption('http_method')
    await page.getByRole('button', { name: 'Group', exact: true }).click()
    await expect(page).toHaveURL(/range=30d.*by=action&by=http_method/)
    await expect(page.getByRole('form', { name: 'Query' }).getByLabel('Range')).toHaveValue('30d')
    await expect(page.getByTestId('group-count')).toHaveText(String(tally(ROWS.map((r) => `${r.action} ${r.method}`)).size))
  })
})

test.describe('more rows than the sample holds', () => {
  test.use({ viewport: { width: 1440, height: 900 } })
  test('the panel says the counts are a sample of how many rows, and the exact count over the whole range matches the rows written', async ({
    playwright,
    page,
  }) => {
    // 50 oldest rows blocked, then 10,000 newer ones allowed: the newest-10,000 sample sees no block at all.
    const policy = `${POLICY}-big`
    const n = 10_050
    const batch = Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        Datetime: new Date(BASE + i * 5_000).toISOString(),
        Action: i < 50 ? 'block' : 'allow',
        HTTPHost: HOST,
        PolicyName: policy,
        HTTPStatusCode: i < 50 ? 403 : 200,
        HTTPMethod: 'GET',
        RequestID: `${RUN}-big-${i}`,
        URL: `https://${HOST}/big/${i}`,
        Email: 'facets@example.com',
      }),
    ).join('\n')
    const request = await playwright.request.newContext({ baseURL: BASE_URL })
    const res = await request.post('/query/ingest/http', {
      headers: { 'x-logpush-secret': 'e2e-logpush-secret-0123456789abcdef', 'content-type': 'application/x-ndjson' },
      data: gzipSync(batch),
    })
    expect(res.status(), await res.text()).toBe(200)
    expect(await res.json()).toMatchObject({ inserted: n, malformed: 0 })
    await request.dispose()

    await page.goto(`/query?dataset=http&range=7d&limit=25&filter=${encodeURIComponent(`policy_name = '${policy}'`)}`)
    const source = page.getByTestId('facets-source')
    await expect(source).toHaveAttribute('data-sampled', 'true')
    await expect(source).toContainText(`from the newest ${fmt(10_000)} of ${fmt(n)} matching rows`)
    await expect(facet(page, 'action').getByTestId('facet-value')).toHaveCount(1)
    await expect(facet(page, 'action').getByTestId('facet-value')).toHaveAttribute('data-count', '10000')
    await page.screenshot({ path: `${SHOTS}/facets-sampled-1440.png` })
    await page.getByTestId('facets-exact').click()
    await expect(page).toHaveURL(/facets=exact/)
    await expect(source).toContainText(`Counted exactly in all ${fmt(n)} matching rows`)
    const items = facet(page, 'action').getByTestId('facet-value')
    await expect(items).toHaveCount(2)
    await expect(items.filter({ hasText: /^allow/ })).toHaveAttribute('data-count', String(n - 50))
    await expect(items.filter({ hasText: /^block/ })).toHaveAttribute('data-count', '50')
  })
})

test.describe('keyboard only', () => {
  test.use({ viewport: { width: 1440, height: 900 } })
  test('from a facet to the group-by page and on to one group’s rows, without the mouse', async ({ page }) => {
    await page.goto(ROWS_URL)
    await expect(page.getByTestId('facets-source')).toBeVisible()
    // Tab until the focused element is the one wanted (its aria-label, or its label's text).
    const tabTo = async (name: string) => {
      for (let i = 0; i < 400; i++) {
        await page.keyboard.press('Tab')
        const focused = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null
          return (
            el?.getAttribute('aria-label') ?? (el as HTMLSelectElement | null)?.labels?.[0]?.firstChild?.textContent?.trim() ?? el?.textContent?.trim() ?? ''
          )
        })
        if (focused === name) return
      }
      throw new Error(`never reached ${name}`)
    }
    await tabTo('Group by action')
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(/\/query\/group\?.*by=action/)
    await expect(page.getByTestId('group-count')).toHaveText(String(tally(ROWS.map((r) => r.action)).size))
    // A second column: type its name into the "Then by" select, then Tab to Group and press Enter.
    await tabTo('Then by')
    await page.keyboard.type('http_method')
    await expect(page.getByLabel('Then by')).toHaveValue('http_method')
    await tabTo('Group')
    await page.keyboard.press('Enter')
    await expect(page).toHaveURL(/by=action&by=http_method/)
    const expected = tally(ROWS.map((r) => `${r.action} ${r.method}`))
    await expect(page.getByTestId('group-count')).toHaveText(String(expected.size))
    const label = await page.getByTestId('group-link').first().getAttribute('aria-label')
    const [, action, method] = /action = (\w+) and http_method = (\w+)/.exec(label!)!
    await tabTo(label!)
    await page.keyboard.press('Enter')
    const n = expected.get(`${action} ${method}`)!
    await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${Math.min(n, 25)} of ${n}`)
  })
})

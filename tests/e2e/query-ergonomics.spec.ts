import { axe, expect, test, type Page } from './fixtures'

// What an operator needs during an incident: a link to the exact window on screen (and a saved
// view pinned to it), focus that stays where the run started, approximate figures and partial
// buckets said as such, the phone layout showing results first, touch on the histogram, the
// dashboard chart narrowing its range, long errors readable. Over the demo rows seeded before the
// server started, as the local operator; screenshots in test-results/shots.

const SHOTS = 'test-results/shots'

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme })

    test('1440 px: link to this exact window pins absolute bounds that still open the same rows', async ({ page }) => {
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.goto('/query?dataset=requests&range=7d&limit=25')
      const link = page.getByTestId('exact-window').getByRole('link', { name: 'Link to this exact window' })
      const href = await link.getAttribute('href')
      const url = new URL(href!, page.url())
      expect(url.searchParams.get('range')).toBe('custom')
      expect(url.searchParams.get('from')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
      const span = Date.parse(`${url.searchParams.get('to')!.replace(' ', 'T')}Z`) - Date.parse(`${url.searchParams.get('from')!.replace(' ', 'T')}Z`)
      expect(span).toBe(7 * 86_400_000)
      const count = await page.getByTestId('row-count').textContent()
      await page.goto(url.toString())
      await expect(page.getByTestId('row-count')).toHaveText(count!)
      await expect(page.getByRole('combobox', { name: 'Range' })).toHaveValue('custom')
      await page.screenshot({ path: `${SHOTS}/rows-1440-${scheme}.png`, fullPage: false })
      await axe(page)
    })

    test('390 px: after a run the form collapses and the results come first; a tap on the histogram narrows the range', async ({ browser }) => {
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        hasTouch: true,
        isMobile: true,
        colorScheme: scheme,
        storageState: test.info().project.use.storageState as never,
      })
      const page = await context.newPage()
      await page.goto('/query?dataset=requests')
      // No query yet in the link: the form is open.
      await expect(page.getByRole('form', { name: 'Query' })).toBeVisible()
      await page.getByRole('button', { name: 'Run' }).click()
      await expect(page).toHaveURL(/range=24h/)
      await expect(page.getByRole('form', { name: 'Query' })).toBeHidden()
      const toggle = page.getByTestId('controls-toggle')
      await expect(toggle).toHaveAttribute('aria-expanded', 'false')
      await expect(toggle).toContainText('Last 24 hours')
      const top = await page.getByTestId('histogram').evaluate((el) => el.getBoundingClientRect().top + window.scrollY)
      expect(top).toBeLessThan(844)
      await page.screenshot({ path: `${SHOTS}/rows-390-${scheme}.png` })
      await axe(page)
      await toggle.click()
      await expect(page.getByRole('form', { name: 'Query' })).toBeVisible()

      // Tap a bar: the range narrows to that bucket.
      await page.goto('/query?dataset=requests&range=7d&limit=25')
      const chart = page.getByTestId('histogram-chart').locator('.u-over')
      await chart.scrollIntoViewIfNeeded()
      const box = (await chart.boundingBox())!
      await page.touchscreen.tap(box.x + box.width * 0.5, box.y + box.height * 0.5)
      await expect(page).toHaveURL(/range=custom/)
      const from = Date.parse(`${new URL(page.url()).searchParams.get('from')!.replace(' ', 'T')}Z`)
      const to = Date.parse(`${new URL(page.url()).searchParams.get('to')!.replace(' ', 'T')}Z`)
      expect(to - from).toBeGreaterThan(0)
      expect(to - from).toBeLessThanOrEqual(86_400_000)
      await context.close()
    })
  })
}

test('keyboard only: Ctrl+Enter in the filter runs the query and the focus stays in the filter', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto('/query?dataset=requests&range=7d&limit=25')
  const filter = page.getByLabel('Filter (SQL WHERE fragment)')
  await filter.focus()
  await page.keyboard.type('status >= 400')
  await page.keyboard.press('Escape')
  await page.keyboard.press('Control+Enter')
  await expect(page).toHaveURL(/filter=status/)
  await expect(page.getByTestId('row-count')).toBeVisible()
  await expect(filter).toBeFocused()
  // From the Run button the focus moves to the results instead of the top of the page.
  await page.getByRole('button', { name: 'Run' }).focus()
  await page.keyboard.press('Shift+Tab')
  await page.keyboard.type(' AND status < 500')
  await page.keyboard.press('Tab')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/status\+%3C\+500|status%20%3C%20500/)
  await expect(page.locator('#results')).toBeFocused()
})

test('a saved view can pin the exact window', async ({ page, request }) => {
  await page.goto('/query?dataset=dns&range=24h&limit=25')
  const name = `pinned ${Date.now()}`
  await page.getByPlaceholder('Name this view').fill(name)
  await page.getByLabel(/Pin this exact window/).check()
  await page.getByRole('button', { name: 'Save view' }).click()
  await expect(page.getByText(`Saved as “${name}”`)).toBeVisible()
  const list = await (await request.get('/query/api/saved')).json()
  const saved = JSON.stringify(list)
  expect(saved).toContain(name)
  const entry = (list.views ?? list.saved ?? list).find?.((v: { name: string }) => v.name === name)
  expect(entry.view).toMatch(/range=custom&from=\d{4}-/)
})

test('dashboard: approximate percentiles marked, partial last bucket marked, dragging the chart narrows the range', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto('/query/dashboard?dataset=requests&range=7d')
  const latency = page.getByRole('region', { name: 'Duration and error rate' })
  const p50 = latency.getByTestId('p50')
  await expect(p50).toBeVisible()
  const sql = await latency.locator('details pre').textContent()
  if (/rollup/i.test(sql!)) {
    await expect(p50).toHaveText(/^≈ /)
    await expect(latency).toContainText('p50 (approximate)')
  }
  await expect(page.getByTestId('partial-note').first()).toContainText('partial')
  await page.screenshot({ path: `${SHOTS}/dashboard-1440.png` })
  const over = page.getByTestId('timeseries-chart').first().locator('.u-over')
  const box = (await over.boundingBox())!
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 })
  await page.mouse.up()
  await expect(page).toHaveURL(/\/query\/dashboard\?.*range=custom/)
})

test('the export follows the page’s sort', async ({ page, request }) => {
  await page.goto('/query?dataset=requests&range=7d&limit=25&sort=duration_ms')
  const href = await page.locator('a[href*="format=ndjson"]').first().getAttribute('href')
  expect(href).toContain('sort=duration_ms')
  const res = await request.get(href!)
  const durations = (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l).duration_ms as number)
  expect(durations.length).toBeGreaterThan(25)
  expect(durations).toEqual([...durations].sort((a, b) => a - b))
})

// The error column follows the outcome (lib/datasets/job-runs/definition.ts), and long texts wrap.
test('at 1440 px a job run’s error is on screen and wraps instead of being cut off', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto("/query?dataset=job_runs&range=7d&limit=25&filter=outcome = 'failed'")
  const cell = page.locator('td[data-col="error"]').first()
  await expect(cell).toBeVisible()
  const fits = await cell.evaluate((el) => ({ right: el.getBoundingClientRect().right, clipped: el.scrollWidth > el.clientWidth + 1 }))
  expect(fits.clipped).toBe(false)
  expect(fits.right).toBeLessThanOrEqual(1440)
  await page.screenshot({ path: `${SHOTS}/job-runs-1440.png` })
})

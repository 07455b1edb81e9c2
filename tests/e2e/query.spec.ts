import { readFileSync } from 'node:fs'
import { expect, test } from './fixtures'

// The query application in Chromium, over the demo rows seeded before the server started (see
// playwright.config.ts), as the local operator.

test('choose a dataset, set a range, apply a quick filter, page, read the SQL, export the rows, open the dashboard', async ({ page }) => {
  await page.goto('/query')
  await expect(page.getByTestId('identity')).toContainText('Local operator')

  // Dataset
  await page.getByRole('navigation', { name: 'Datasets' }).getByRole('link', { name: 'Gateway DNS' }).click()
  await expect(page).toHaveURL(/dataset=dns/)
  await expect(page.getByRole('columnheader', { name: 'resolver_decision' })).toBeVisible()

  // Range
  await page.getByLabel('Range').selectOption('7d')
  await page.getByRole('button', { name: 'Run' }).click()
  await expect(page).toHaveURL(/range=7d/)

  // Quick filter: every row shown is a block decision
  await page.getByRole('group', { name: 'Quick filters' }).getByRole('link', { name: 'Blocked' }).click()
  await expect(page).toHaveURL(/filter=resolver_decision/)
  const summary = page.getByTestId('row-count')
  await expect(summary).toHaveText(/^Rows 1–100 of [\d,]+$/)
  const total = (await summary.textContent())!.match(/of ([\d,]+)/)![1]
  const decisionColumn = (await page.getByRole('columnheader').allTextContents()).indexOf('resolver_decision')
  const decisions = await page
    .getByTestId('rows')
    .locator(`tbody tr td:nth-child(${decisionColumn + 1})`)
    .allTextContents()
  expect(decisions).toHaveLength(100)
  expect(decisions.every((d) => d.startsWith('blocked'))).toBe(true)

  // SQL: the statement that ran, the filter regenerated from its parse tree
  await expect(page.getByTestId('sql').first()).toContainText('FROM "gateway_dns"')
  await expect(page.getByTestId('sql').first()).toContainText(`AND (resolver_decision LIKE 'blocked%')`)
  await expect(page.getByTestId('elapsed')).toHaveText(/ms in the database/)

  // Paging, and back again with the browser's back button
  await page.getByRole('link', { name: 'Next →' }).click()
  await expect(page).toHaveURL(/offset=100/)
  await expect(summary).toHaveText(`Rows 101–${Math.min(200, Number(total.replace(/,/g, '')))} of ${total}`)
  await page.goBack()
  await expect(summary).toHaveText(`Rows 1–100 of ${total}`)

  // CSV export: every matching row, not only the page on screen
  await expect(page.getByTestId('export')).toContainText(`Export all ${total} matching rows`)
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').getByRole('link', { name: 'CSV' }).click()])
  expect(download.suggestedFilename()).toMatch(/^dns-.*\.csv$/)
  const csv = readFileSync((await download.path())!, 'utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\n')
  expect(csv[0].split(',')).toContain('resolver_decision')
  expect(csv).toHaveLength(Number(total.replace(/,/g, '')) + 1)

  // Dashboard: same state, charts drawn
  await page.getByRole('navigation', { name: 'Pages' }).first().getByRole('link', { name: 'Dashboard' }).click()
  await expect(page).toHaveURL(/\/query\/dashboard\?dataset=dns&range=7d&filter=/)
  const chart = page.getByTestId('timeseries-chart')
  await expect(chart.locator('canvas')).toBeVisible()
  const box = await chart.locator('canvas').boundingBox()
  expect(box!.width).toBeGreaterThan(200)
  const decisionsPanel = page.getByRole('region', { name: 'Decisions' })
  await expect(decisionsPanel.getByRole('listitem').first()).toContainText(/^blocked/)
  await expect(page.getByTestId('panel')).toHaveCount(12)
})

test('a rejected filter and an empty result are shown as such', async ({ page }) => {
  await page.goto('/query?dataset=http&range=24h')
  await page.getByLabel('Filter (SQL WHERE fragment)').fill('secret_column = 1 OR pg_sleep(10) IS NULL')
  await page.getByRole('button', { name: 'Run' }).click()
  const error = page.getByRole('alert').filter({ hasText: 'The query was not run' })
  await expect(error).toContainText('secret_column')

  await page.getByLabel('Filter (SQL WHERE fragment)').fill("http_host = 'no-such-host.example'")
  await page.getByRole('button', { name: 'Run' }).click()
  await expect(page.getByText('No rows match this range and filter.')).toBeVisible()
})

import { expect, test } from './fixtures'

// The scheduled jobs' history in the query application (demo rows seeded before the server
// started, see playwright.config.ts): the grade and status changes of the platform domains, and
// the job runs by outcome, each a click away from the rows behind them.

test('domain checks: the dashboard shows what changed, and a change filters the rows to it', async ({ page }) => {
  await page.goto('/query/dashboard?dataset=domain_checks&range=30d')
  const changes = page.getByRole('region', { name: 'Grade and status changes', exact: true })
  await expect(changes.getByRole('listitem').first()).toContainText('→')
  await expect(page.getByRole('region', { name: 'Grade and status changes over time' })).toBeVisible()
  const first = changes.getByRole('listitem').first().getByRole('link').first()
  const change = (await first.textContent())!.trim()
  await first.click()
  // Quoted: CHANGE is an SQL keyword.
  await expect(page).toHaveURL(/filter=%22change%22/)
  await expect(changes.getByRole('listitem')).toHaveCount(1)
  await expect(changes.getByRole('listitem')).toContainText(change)

  // The rows behind it, through the "Changes" quick filter.
  await page.goto('/query?dataset=domain_checks&range=30d')
  await page.getByRole('group', { name: 'Quick filters' }).getByRole('link', { name: 'Changes' }).click()
  await expect(page).toHaveURL(/filter=changed/)
  await expect(page.getByTestId('sql').first()).toContainText('AND (changed = true)')
  const column = (await page.getByRole('columnheader').allTextContents()).indexOf('change')
  const values = await page.locator(`tbody tr td:nth-child(${column + 1})`).allTextContents()
  expect(values.length).toBeGreaterThan(0)
  expect(values.every((v) => v.includes('→'))).toBe(true)
  expect(change).toMatch(/^(grade|status) \S+ → \S+$/)
})

test('job runs: runs by outcome over time, and the failed runs with their error', async ({ page }) => {
  await page.goto('/query/dashboard?dataset=job_runs&range=7d')
  await expect(page.getByRole('region', { name: 'Runs by outcome over time' })).toBeVisible()
  await expect(page.getByRole('region', { name: 'Outcomes' })).toContainText('succeeded')
  await page.goto('/query?dataset=job_runs&range=7d')
  await page.getByRole('group', { name: 'Quick filters' }).getByRole('link', { name: 'Failed' }).click()
  await expect(page.getByTestId('sql').first()).toContainText("AND (outcome = 'failed')")
  await expect(page.getByTestId('row-count')).toHaveText(/^Rows 1–\d+ of [\d,]+$/)
  const headers = await page.getByRole('columnheader').allTextContents()
  const outcomes = await page.locator(`tbody tr td:nth-child(${headers.indexOf('outcome') + 1})`).allTextContents()
  expect(new Set(outcomes)).toEqual(new Set(['failed']))
  const errors = await page.locator(`tbody tr td:nth-child(${headers.indexOf('error') + 1})`).allTextContents()
  expect(errors.every((e) => e.length > 0)).toBe(true)
})

test('a job run links to the API requests of its moment: 5 minutes before it started to 5 minutes after it ended', async ({ page }) => {
  await page.goto('/query?dataset=job_runs&range=7d&filter=ended_at IS NOT NULL')
  await page.getByRole('button', { name: 'Details of row 1', exact: true }).click()
  const started = Date.parse((await page.locator('code[data-field="started_at"]').textContent())!)
  const ended = Date.parse((await page.locator('code[data-field="ended_at"]').textContent())!)
  await page.getByTestId('moment-link').click()
  await expect(page).toHaveURL(/dataset=requests&range=custom/)
  const url = new URL(page.url())
  expect(Date.parse(url.searchParams.get('from')!)).toBe(Math.floor((started - 5 * 60_000) / 1000) * 1000)
  expect(Date.parse(url.searchParams.get('to')!)).toBe(Math.floor((ended + 5 * 60_000) / 1000) * 1000)
  await expect(page.getByTestId('row-count')).toBeVisible()
})

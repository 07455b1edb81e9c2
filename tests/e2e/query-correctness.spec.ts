import { expect, test } from './fixtures'

// Correctness of the query pages' URL state: what the form shows is what runs, and a link with a
// malformed parameter still opens the page.

const HOUR = 3_600_000
const minute = (t: number) => new Date(Math.floor(t / 60_000) * 60_000).toISOString()

test('typed From/To dates are the range that runs, even while a preset range was selected', async ({ page }) => {
  const from = minute(Date.now() - 72 * HOUR)
  const to = minute(Date.now() - 48 * HOUR)
  await page.goto('/query?dataset=requests&range=24h')
  // By role: the facets panel's label ("Top values…") also starts with "To".
  await page.getByRole('textbox', { name: /^From/ }).fill(from.slice(0, 16))
  await page.getByRole('textbox', { name: /^To/ }).fill(to.slice(0, 16))
  await page.getByRole('button', { name: 'Run' }).click()

  await expect(page).toHaveURL(/range=custom/)
  await expect(page.getByLabel('Range')).toHaveValue('custom')
  // The statement that ran is bound to the typed bounds, not to the last 24 hours.
  await expect(page.getByTestId('sql-params').first()).toContainText(`$1 = "${from}"`)
  await expect(page.getByTestId('sql-params').first()).toContainText(`$2 = "${to}"`)
})

test('choosing a preset again runs the preset and leaves no dates in the URL', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=custom&from=2026-01-01&to=2026-01-02')
  await page.getByLabel('Range').selectOption('7d')
  await page.getByRole('button', { name: 'Run' }).click()
  await expect(page).toHaveURL(/range=7d/)
  expect(new URL(page.url()).searchParams.has('from')).toBe(false)
  expect(new URL(page.url()).searchParams.has('to')).toBe(false)
})

test('a malformed URL parameter gets a sentence and the page with defaults', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=7d&limit=abc&offset=-4')
  const notice = page.getByRole('status').filter({ hasText: 'link' })
  await expect(notice).toContainText('“abc” is not a number of rows per page; showing 100.')
  await expect(notice).toContainText('“-4” is not a row offset; starting at the first row.')
  await expect(page.locator('body')).not.toContainText('Invalid input')
  await expect(page.locator('body')).not.toContainText('expected number')
  await expect(page.getByTestId('row-count')).toHaveText(/^Rows 1–100 of [\d,]+$/)
  await expect(page.getByLabel('Rows per page')).toHaveValue('100')
})

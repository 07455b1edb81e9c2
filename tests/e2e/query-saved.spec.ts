import { randomUUID } from 'node:crypto'
import { expect, test } from './fixtures'

// Saved views and history as the local operator (another identity's views are tested through the
// API with real tokens: tests/integration/query-saved.test.ts).

test('name and save a view, then open, share, rename and delete it', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  const name = `NXDOMAIN week ${randomUUID().slice(0, 8)}`
  await page.goto('/query?dataset=dns&range=7d&filter=rcode = 3&cols=datetime,query_name,rcode')
  const form = page.getByRole('form', { name: 'Save this view' })
  await form.getByRole('textbox', { name: 'Name of the saved view' }).fill(name)
  await form.getByRole('button', { name: 'Save view' }).click()
  await expect(form.getByRole('status')).toHaveText(`Saved as “${name}”. Your saved views`)

  await form.getByRole('link', { name: 'Your saved views' }).click()
  await expect(page).toHaveTitle('Saved views and history · Query application')
  const row = page.getByTestId('saved-view').filter({ hasText: name })
  await expect(row).toContainText('Rows · Gateway DNS · Last 7 days · rcode = 3 · 3 columns')

  await row.getByRole('button', { name: `Copy link to ${name}` }).click()
  const link = await page.evaluate(() => navigator.clipboard.readText())
  expect(new URL(link).searchParams.get('filter')).toBe('rcode = 3')
  expect(new URL(link).searchParams.get('cols')).toBe('datetime,query_name,rcode')

  const renamed = `${name} (renamed)`
  await row.getByRole('button', { name: `Rename ${name}` }).click()
  await row.getByRole('textbox', { name: `New name for ${name}` }).fill(renamed)
  await row.getByRole('button', { name: 'Save name' }).click()
  const renamedRow = page.getByTestId('saved-view').filter({ hasText: renamed })
  await expect(renamedRow).toBeVisible()

  await renamedRow.getByRole('link', { name: renamed }).click()
  await expect(page).toHaveURL(/dataset=dns&range=7d&filter=rcode\+%3D\+3&cols=datetime%2Cquery_name%2Crcode/)
  await expect(page.getByRole('columnheader')).toHaveText(['Details', 'datetime', 'query_name', 'rcode'])

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Saved and history' }).click()
  page.once('dialog', (d) => d.accept())
  await page
    .getByTestId('saved-view')
    .filter({ hasText: renamed })
    .getByRole('button', { name: `Delete ${renamed}` })
    .click()
  await expect(page.getByTestId('saved-view').filter({ hasText: renamed })).toHaveCount(0)
})

test('the last runs are listed, newest first, and open again', async ({ page }) => {
  const marker = `${Math.floor(Math.random() * 1e6) + 10_000}`
  await page.goto(`/query?dataset=requests&range=7d&filter=duration_ms < ${marker}`)
  await expect(page.getByTestId('row-count')).toBeVisible()
  await page.goto(`/query/dashboard?dataset=requests&range=7d&filter=nope = ${marker}`)
  await expect(page.getByRole('alert').filter({ hasText: 'The dashboard was not run' })).toContainText('nope')

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Saved and history' }).click()
  const entries = page.getByTestId('history-entry')
  await expect(entries.nth(0)).toContainText(`Dashboard · API requests · Last 7 days · nope = ${marker}`)
  await expect(entries.nth(0)).toContainText('unknown column "nope"')
  await expect(entries.nth(1)).toContainText(`Rows · API requests · Last 7 days · duration_ms < ${marker}`)
  await expect(entries.nth(1)).toContainText(/[\d,]+ rows in [\d.]+ ms/)
  expect(await entries.count()).toBeLessThanOrEqual(50)
  await entries.nth(1).getByRole('link').click()
  await expect(page).toHaveURL(new RegExp(`filter=duration_ms\\+%3C\\+${marker}`))
})

import { randomUUID } from 'node:crypto'
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from './fixtures'

// A saved view's alert condition, set, shown, changed and removed from the saved-views page with
// the keyboard for the first one, and the page with its open condition form passes axe in light and dark (no serious or critical
// violation). The job that evaluates conditions is tested on both databases in tests/unit/alerts.test.ts.

test('set, show, change and remove a saved view’s alert condition', async ({ page }) => {
  const name = `Server errors ${randomUUID().slice(0, 8)}`
  await page.goto("/query?dataset=requests&range=24h&filter=route LIKE '/api/%'")
  const save = page.getByRole('form', { name: 'Save this view' })
  await save.getByRole('textbox', { name: 'Name of the saved view' }).fill(name)
  await save.getByRole('button', { name: 'Save view' }).click()
  await expect(save.getByRole('status')).toContainText(`Saved as “${name}”`)

  await page.goto('/query/saved')
  const row = page.getByTestId('saved-view').filter({ hasText: name })
  await expect(row.getByTestId('condition')).toHaveText('No alert')
  await row.getByRole('button', { name: `Set the alert of ${name}` }).focus()
  await page.keyboard.press('Enter')
  const form = row.getByRole('form', { name: `Alert condition of ${name}` })
  await expect(form).toBeVisible()
  await form.getByLabel('Alert when').selectOption('error_rate')
  await form.getByLabel('Direction').selectOption('above')
  await form.getByLabel('Threshold (%)').fill('5')
  await form.getByLabel('Over the last (minutes)').fill('15')

  const axe = await new AxeBuilder({ page }).analyze()
  expect(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`),
  ).toEqual([])

  await form.getByLabel('Over the last (minutes)').press('Enter')
  await expect(row.getByTestId('condition')).toHaveText('Error rate above 5 % over the last 15 min')
  await expect(row.getByRole('status').filter({ hasText: 'Alert condition saved.' })).toBeVisible()

  // Shown again after a reload (stored), then changed to a row count and removed.
  await page.reload()
  const again = page.getByTestId('saved-view').filter({ hasText: name })
  await expect(again.getByTestId('condition')).toHaveText('Error rate above 5 % over the last 15 min')
  // Its alerts: the alerts dataset knows the view by id only; its owner's page links the two.
  await expect(again.getByRole('link', { name: `Alerts of ${name}` })).toHaveAttribute(
    'href',
    /\?dataset=alerts&range=7d&filter=view_id\+%3D\+%27[0-9a-f-]+%27$/,
  )
  await again.getByRole('button', { name: `Change the alert of ${name}` }).click()
  const change = again.getByRole('form', { name: `Alert condition of ${name}` })
  await expect(change.getByLabel('Threshold (%)')).toHaveValue('5')
  await change.getByLabel('Alert when').selectOption('count')
  await change.getByLabel('Direction').selectOption('below')
  await change.getByLabel('Threshold (rows)').fill('1')
  await change.getByLabel('Over the last (minutes)').fill('60')
  await change.getByRole('button', { name: 'Save alert' }).click()
  await expect(again.getByTestId('condition')).toHaveText('Row count below 1 row over the last 1 h')

  await page.emulateMedia({ colorScheme: 'dark' })
  const dark = await new AxeBuilder({ page }).analyze()
  expect(dark.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([])

  await again.getByRole('button', { name: `Remove the alert of ${name}` }).click()
  await expect(again.getByTestId('condition')).toHaveText('No alert')
  page.once('dialog', (d) => d.accept())
  await again.getByRole('button', { name: `Delete ${name}` }).click()
})

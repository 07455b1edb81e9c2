import { expect, test } from './fixtures'

test('the landing page says what the service is and links its surfaces', async ({ page }) => {
  await page.goto('/')
  await expect(page.getByRole('heading', { name: 'Utility API' })).toBeVisible()
  await expect(page.getByRole('link', { name: 'API reference' })).toHaveAttribute('href', '/api/docs')
  await expect(page.getByRole('link', { name: 'OpenAPI document' })).toHaveAttribute('href', '/api/openapi.json')
  await expect(page.getByRole('heading', { name: 'Connect an MCP client' })).toBeVisible()
})

test('the docs page renders the operations and loads nothing from other origins', async ({ page }, testInfo) => {
  const foreign: string[] = []
  page.on('request', (req) => {
    const url = new URL(req.url())
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) && url.protocol.startsWith('http')) foreign.push(req.url())
  })
  await page.goto('/api/docs')
  await expect(page.getByText('Utility API').first()).toBeVisible({ timeout: 30_000 })
  // Operation summaries from the OpenAPI document, as rendered by the reference UI's sidebar.
  const sidebar = page.getByRole('navigation', { name: /Sidebar/ })
  await expect(sidebar.getByRole('button', { name: /Service health/ })).toBeVisible()
  await sidebar.getByRole('button', { name: /^Generator/ }).click()
  await expect(sidebar.getByRole('button', { name: /Generate GUIDs/ })).toBeVisible()
  await sidebar.getByRole('button', { name: /^Directory/ }).click()
  await expect(sidebar.getByRole('button', { name: /Convert up to 100 object IDs and SIDs at once/ })).toBeVisible()

  const shot = await page.screenshot({ fullPage: false })
  await testInfo.attach('docs.png', { body: shot, contentType: 'image/png' })
  // A blank page compresses to almost nothing; a rendered reference does not.
  expect(shot.byteLength).toBeGreaterThan(20_000)
  expect(foreign).toEqual([])
})

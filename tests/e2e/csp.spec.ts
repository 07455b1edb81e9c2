import { expect, test, type Page } from './fixtures'

// The Content Security Policy in Chromium: every page works under it (the landing page, Scalar's
// reference, the query pages with their uPlot charts) and the browser reports no violation, in the
// console or as a securitypolicyviolation event.

/** Collects what the browser reports against the policy while the page loads and runs. */
async function watchViolations(page: Page): Promise<string[]> {
  const violations: string[] = []
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy|Refused to (load|execute|apply|connect|frame)/i.test(message.text())) violations.push(`console: ${message.text()}`)
  })
  await page.exposeFunction('reportViolation', (text: string) => violations.push(`event: ${text}`))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      ;(window as unknown as { reportViolation(t: string): void }).reportViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`)
    })
  })
  return violations
}

test('the landing page runs under its policy', async ({ page }) => {
  const violations = await watchViolations(page)
  const res = await page.goto('/')
  expect(res!.headers()['content-security-policy']).toContain("'strict-dynamic'")
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(violations).toEqual([])
})

test('the API reference (Scalar) loads under its policy', async ({ page }) => {
  const violations = await watchViolations(page)
  const res = await page.goto('/api/docs')
  expect(res!.headers()['content-security-policy']).toContain("frame-ancestors 'none'")
  await expect(page.getByRole('navigation', { name: /^Sidebar/ })).toBeVisible({ timeout: 60_000 })
  await page.waitForLoadState('networkidle')
  expect(violations).toEqual([])
})

test('the query pages and their charts run under their policy', async ({ page }) => {
  const violations = await watchViolations(page)
  const res = await page.goto('/query?dataset=http&range=24h')
  expect(res!.headers()['content-security-policy']).toContain("'strict-dynamic'")
  await expect(page.getByTestId('identity')).toContainText('Local operator')
  await page.waitForLoadState('networkidle')
  await page.goto('/query/dashboard?dataset=http&range=24h')
  await expect(page.getByTestId('timeseries-chart').locator('canvas')).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(violations).toEqual([])
})

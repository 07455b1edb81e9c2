import { expect, test } from './fixtures'
import { E2E_OPERATOR_KEY } from './operator-key'

// Refusals and unknown addresses get a page in the application's style that says what happened,
// what to do next and the request id. (401 and 503 need other access settings than this server's:
// tests/integration/query-access.test.ts.)

test.describe('a relayed request in local-operator mode', () => {
  test.use({ extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.7' } })

  test('is refused with a page that explains what to do', async ({ page }) => {
    const res = await page.goto('/query/dashboard')
    expect(res!.status()).toBe(403)
    await expect(page.locator('html')).toHaveAttribute('lang', 'en')
    await expect(page.locator('meta[name="viewport"]')).toHaveAttribute('content', /width=device-width/)
    await expect(page).toHaveTitle('Access refused · Query application')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Access refused')
    await expect(page.getByRole('main')).toContainText('Without access settings only direct loopback requests are accepted.')
    await expect(page.getByRole('heading', { name: 'What to do next' })).toBeVisible()
    await expect(page.getByRole('main')).toContainText('not through a proxy or another address')
    await expect(page.getByRole('main')).toContainText(`Request id: ${res!.headers()['x-request-id']}`)
  })
})

test.describe('a browser that has not opened the start-up link', () => {
  test.use({ storageState: { cookies: [], origins: [] } })

  test('is told to open it, and opening it lets the person in at the clean address', async ({ page, baseURL }) => {
    const res = await page.goto('/query/dashboard')
    expect(res!.status()).toBe(401)
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Open the link from the start-up lines')
    await expect(page.getByRole('main')).toContainText(`Open the “query” link printed by npm start (${baseURL}/query?key=…)`)
    await expect(page.getByRole('main')).not.toContainText('`')
    await page.goto(`/query?dataset=dns&key=${E2E_OPERATOR_KEY}`)
    await expect(page).toHaveURL(/\/query\?dataset=dns$/)
    await expect(page.getByTestId('identity')).toContainText('Local operator')
    const [cookie] = await page.context().cookies()
    expect(cookie).toMatchObject({ name: `local_operator_key_${new URL(baseURL!).port}`, httpOnly: true, sameSite: 'Strict' })
  })
})

test('an unknown address under /query gets the same kind of page, with the way back', async ({ page }) => {
  const res = await page.goto('/query/no-such-page')
  expect(res!.status()).toBe(404)
  await expect(page).toHaveTitle(/Page not found/)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found')
  await expect(page.getByRole('heading', { name: 'What to do next' })).toBeVisible()
  await expect(page.getByRole('main')).toContainText(`Request id: ${res!.headers()['x-request-id']}`)
  await page.getByRole('link', { name: 'the query application' }).click()
  await expect(page).toHaveURL(/\/query$/)
})

test('an unknown address elsewhere links home and to the API reference', async ({ page }) => {
  const res = await page.goto('/no-such-page')
  expect(res!.status()).toBe(404)
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Page not found')
  await expect(page.getByRole('main')).toContainText(`Request id: ${res!.headers()['x-request-id']}`)
  await expect(page.getByRole('link', { name: 'the home page' })).toHaveAttribute('href', '/')
  await expect(page.getByRole('link', { name: 'the API reference' })).toHaveAttribute('href', '/api/docs')
})

import { mkdirSync } from 'node:fs'
import { axe, expect, test, type APIRequestContext, type Page } from './fixtures'
import config from '../../playwright.config'

// Live tail on the rows page, fed the way real rows arrive: Logpush batches of gateway HTTP rows
// posted while the page is open, each test with a policy of its own to filter on. Checked: rows
// appear without a reload, newest first; a pause holds them back and Resume brings them; more rows
// than one check returns are counted as skipped; keyboard only; axe at 1440 px and 390 px, light
// and dark. Screenshots go to test-results/live-tail/.

const SHOTS = 'test-results/live-tail'
const BASE_URL = config.use!.baseURL!
let serial = 0

async function post(request: APIRequestContext, policy: string, n: number): Promise<string[]> {
  const now = Date.now()
  const ids = Array.from({ length: n }, () => `${policy}-${serial++}`)
  const batch = ids
    .map((id, i) =>
      JSON.stringify({
        Datetime: new Date(now - (n - i) * 100).toISOString(),
        Action: 'allow',
        HTTPHost: `${policy}.e2e.test`,
        PolicyName: policy,
        HTTPStatusCode: 200,
        HTTPMethod: 'GET',
        RequestID: id,
        URL: `https://${policy}.e2e.test/${id}`,
        Email: 'live@example.com',
      }),
    )
    .join('\n')
  const res = await request.post('/query/ingest/http', {
    headers: { 'x-logpush-secret': 'e2e-logpush-secret-0123456789abcdef', 'content-type': 'application/x-ndjson' },
    data: batch,
  })
  expect(res.status(), await res.text()).toBe(200)
  return ids
}

const policyOf = (name: string) => `live-${name}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const liveUrl = (policy: string) =>
  `/query?dataset=http&live=1&cols=datetime,action,policy_name,request_id&filter=${encodeURIComponent(`policy_name = '${policy}'`)}`
const tableRows = (page: Page) => page.getByTestId('rows').locator('tbody tr')

test.beforeAll(() => mkdirSync(SHOTS, { recursive: true }))

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${width} px, ${scheme}: rows appear as they are written, a pause holds them back, Resume brings them`, async ({ page, playwright }) => {
      await page.setViewportSize({ width, height })
      await page.emulateMedia({ colorScheme: scheme })
      const request = await playwright.request.newContext({ baseURL: BASE_URL })
      const policy = policyOf(`${width}-${scheme}`)
      await page.goto(liveUrl(policy))
      await expect(page.getByTestId('live-tail')).toHaveAttribute('data-status', 'live')
      await expect(page.getByTestId('live-tail')).toContainText('No rows in the last hour match yet')

      const first = await post(request, policy, 3)
      await expect(tableRows(page)).toHaveCount(3)
      // Newest first, as the rows page shows them.
      await expect(tableRows(page).first()).toContainText(first[2])
      await expect(page.getByTestId('live-count')).toHaveText('3 rows received')
      await page.screenshot({ path: `${SHOTS}/live-${width}-${scheme}.png` })
      await axe(page)

      await page.getByRole('button', { name: 'Pause' }).click()
      await expect(page.getByTestId('live-tail')).toHaveAttribute('data-status', 'paused')
      const during = await post(request, policy, 2)
      // Two checks' worth of time: nothing comes while paused.
      await page.waitForTimeout(4500)
      await expect(tableRows(page)).toHaveCount(3)
      await page.getByRole('button', { name: 'Resume' }).click()
      await expect(tableRows(page)).toHaveCount(5)
      await expect(tableRows(page).first()).toContainText(during[1])
      await request.dispose()
    })
  }
}

test('more rows than one check returns: the newest come, the rest are counted as skipped', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL: BASE_URL })
  const policy = policyOf('burst')
  await page.goto(liveUrl(policy))
  await expect(page.getByTestId('live-tail')).toContainText('No rows in the last hour match yet')
  const ids = await post(request, policy, 150)
  await expect(page.getByTestId('live-count')).toHaveText('150 rows received, the newest 100 kept (50 skipped: more arrived than 100 per check)')
  await expect(tableRows(page)).toHaveCount(100)
  await expect(tableRows(page).first()).toContainText(ids[149])
  await expect(tableRows(page).last()).toContainText(ids[50])
  await request.dispose()
})

test('keyboard only: from the rows to the live tail, pause it, and back to the rows', async ({ page, playwright }) => {
  const request = await playwright.request.newContext({ baseURL: BASE_URL })
  const policy = policyOf('keys')
  const ids = await post(request, policy, 2)
  await page.goto(`/query?dataset=http&range=1h&filter=${encodeURIComponent(`policy_name = '${policy}'`)}`)
  await expect(page.getByTestId('row-count')).toHaveText('Rows 1–2 of 2')
  const tabTo = async (name: string) => {
    for (let i = 0; i < 300; i++) {
      await page.keyboard.press('Tab')
      if ((await page.evaluate(() => document.activeElement?.textContent?.trim())) === name) return
    }
    throw new Error(`never reached ${name}`)
  }
  await tabTo('Live tail')
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/live=1/)
  // The first answer is the newest rows of the last hour.
  await expect(tableRows(page)).toHaveCount(2)
  await expect(tableRows(page).first()).toContainText(ids[1])
  await tabTo('Pause')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('live-status')).toContainText('Paused')
  await tabTo('Back to the rows of a range')
  await page.keyboard.press('Enter')
  await expect(page).not.toHaveURL(/live=1/)
  await expect(page.getByTestId('row-count')).toHaveText('Rows 1–2 of 2')
  await request.dispose()
})

test('a filter the API cannot run stops the tail with its sentence', async ({ page }) => {
  await page.goto(`/query?dataset=http&live=1&filter=${encodeURIComponent('no_such_column = 1')}`)
  await expect(page.getByTestId('live-tail')).toHaveAttribute('data-status', 'stopped')
  await expect(page.getByTestId('live-error')).toContainText('no_such_column')
})

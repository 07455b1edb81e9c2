import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from '@playwright/test'
import { E2E_CRON_SECRET } from './operator-key'

// An alert an operator can check: its condition names its own destination (a loopback receiver
// started here) and must hold in consecutive windows; "Send a test notification" says on the page
// that the receiver took it; a run of the alerts job (its cron route) then fires it, and the saved
// page lists the check with its delivery. Axe in light and dark; screenshots at 1440 and 390 px in
// test-results/shots.

const SHOTS = 'test-results/shots'
const received: Array<Record<string, unknown>> = []
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
    res.writeHead(200).end('ok')
  })
})
let hook = ''
/** How the page names the hook: channel, origin and the start of the URL's SHA-256. */
const hookLabel = () => `json → ${new URL(hook).origin} #${createHash('sha256').update(hook).digest('hex').slice(0, 6)}`

test.beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  mkdirSync(SHOTS, { recursive: true })
})
test.afterAll(() => new Promise<void>((r) => receiver.close(() => r())))

async function expectNoSeriousViolations(page: Page) {
  const axe = await new AxeBuilder({ page }).analyze()
  expect(
    axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`),
  ).toEqual([])
}

test('test notification, consecutive windows and destinations in the editor, and the recent checks of an alert', async ({ page }) => {
  const name = `Quiet route ${randomUUID().slice(0, 8)}`
  await page.goto(`/query?dataset=requests&range=1h&filter=${encodeURIComponent(`route = '/${name.replaceAll(' ', '-')}'`)}`)
  const save = page.getByRole('form', { name: 'Save this view' })
  await save.getByRole('textbox', { name: 'Name of the saved view' }).fill(name)
  await save.getByRole('button', { name: 'Save view' }).click()
  await expect(save.getByRole('status')).toContainText(`Saved as “${name}”`)

  await page.goto('/query/saved')
  const row = page.getByTestId('saved-view').filter({ hasText: name })
  await expect(row.getByRole('button', { name: `Send a test notification for ${name}` })).toHaveCount(0)
  await row.getByRole('button', { name: `Set the alert of ${name}` }).click()
  const form = row.getByRole('form', { name: `Alert condition of ${name}` })
  await form.getByLabel('Alert when').selectOption('count')
  await form.getByLabel('Direction').selectOption('below')
  await form.getByLabel('Threshold (rows)').fill('1')
  await form.getByLabel('Over the last (minutes)').fill('1')
  await form.getByLabel('Consecutive windows').fill('2')
  await form.getByLabel('Destinations').fill(`http://hooks.example.com/nope`)
  await form.getByRole('button', { name: 'Save alert' }).click()
  // The server's own check: https, or http on loopback only.
  await expect(row.getByRole('status').filter({ hasText: 'https URL' })).toBeVisible()
  await form.getByLabel('Destinations').fill(`${hook} json`)
  await expectNoSeriousViolations(page)
  await form.getByRole('button', { name: 'Save alert' }).click()
  await expect(row.getByTestId('condition')).toHaveText('Row count below 1 row over each of the last 2 windows of 1 min')
  await expect(row.getByTestId('destinations')).toHaveText(`to ${new URL(hook).host}`)

  await row.getByRole('button', { name: `Send a test notification for ${name}` }).click()
  await expect(row.getByRole('status').filter({ hasText: 'Test notification:' })).toHaveText(`Test notification: Delivered to ${hookLabel()} (HTTP 200).`)
  expect(received).toEqual([expect.objectContaining({ event: 'test', test: true, name })])

  // A run of the alerts job: nothing matched in the last two minutes, so it fires, to the receiver.
  const run = await page.request.get('/api/cron/alerts', { headers: { authorization: `Bearer ${E2E_CRON_SECRET}` } })
  expect(run.status()).toBe(200)
  await expect.poll(() => received.filter((b) => b.name === name && b.event === 'fired').length).toBe(1)

  await page.reload()
  const checks = page.getByRole('table', { name: `Recent checks of ${name}` })
  await expect(checks.getByRole('row')).toHaveCount(2)
  const check = checks.getByTestId('evaluation').first()
  await expect(check.getByRole('cell').nth(2)).toHaveText('0 rows (below 1 row; held in 2 of 2 windows)')
  await expect(check.getByRole('cell').nth(3)).toHaveText('Firing')
  await expect(check.getByRole('cell').nth(4)).toHaveText(`Delivered: ${hookLabel()}: delivered (HTTP 200)`)

  // A second run: still firing, nothing sent; the chart shows both checks and one firing marker.
  expect((await page.request.get('/api/cron/alerts', { headers: { authorization: `Bearer ${E2E_CRON_SECRET}` } })).status()).toBe(200)
  await page.reload()
  await expect(checks.getByRole('row')).toHaveCount(3)
  await expect(checks.getByTestId('evaluation').first().getByRole('cell').nth(4)).toHaveText('None (no change)')
  const section = page.getByRole('region', { name })
  const chart = section.getByRole('img', {
    name: new RegExp(`^Values of the last 2 checks of ${name} against the threshold 1 row, .*: 1 firing, 0 resolved\\.$`),
  })
  await expect(chart).toBeVisible()
  await expect(section.getByTestId('marker-fired')).toHaveCount(1)
  expect(received.filter((b) => b.name === name)).toHaveLength(2)

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await expectNoSeriousViolations(page)
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await section.scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${SHOTS}/alert-checks-${width}-${scheme}.png`, fullPage: false })
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 })
  page.once('dialog', (d) => d.accept())
  await row.getByRole('button', { name: `Delete ${name}` }).click()
  await expect(page.getByRole('table', { name: `Recent checks of ${name}` })).toHaveCount(0)
})

import { mkdirSync } from 'node:fs'
import { axe, expect, ingestHttp, test, type Page } from './fixtures'

// Patterns under the rows, checked against rows this run writes: a Logpush batch of gateway HTTP
// rows with a policy of their own whose URLs follow three known templates (ids, a hex run, a UUID,
// numbers). The expected templates and counts are written here from how the URLs were made. Driven
// at 1440 px and 390 px, light and dark, with axe (no serious or critical violation). Screenshots go
// to test-results/patterns/.

const HOUR = 3_600_000
// Starts with a letter and has no separator: it touches letters on every side, so no placeholder replaces it.
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const HOST = `patterns.${RUN}.e2e.test`
const POLICY = `patterns-${RUN}`
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 20 * HOUR
const hex = (i: number) => `${(0x9f8e7d6c + i).toString(16)}ab12`
const uuid = (i: number) => `${(0x1a2b3c4d + i).toString(16)}-0e1f-4a5b-8c6d-${(0xabcdef000000 + i).toString(16)}`
const KINDS = [
  { template: `https://${HOST}/api/users/<num>/orders/<hex>`, rows: 24, url: (i: number) => `https://${HOST}/api/users/${100 + i}/orders/${hex(i)}` },
  { template: `https://${HOST}/sessions/<uuid>`, rows: 16, url: (i: number) => `https://${HOST}/sessions/${uuid(i)}` },
  { template: `https://${HOST}/search?q=item-<num>&page=<num>`, rows: 8, url: (i: number) => `https://${HOST}/search?q=item-${i * 3}&page=${i % 5}` },
]
const ROWS = KINDS.flatMap((k) => Array.from({ length: k.rows }, (_, i) => k.url(i)))
const FILTER = `policy_name = '${POLICY}'`
const ROWS_URL = `/query?dataset=http&range=7d&limit=25&filter=${encodeURIComponent(FILTER)}`
const SHOTS = 'test-results/patterns'
const fmt = (n: number) => new Intl.NumberFormat('en').format(n)

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ playwright }) => {
  mkdirSync(SHOTS, { recursive: true })
  const batch = ROWS.map((url, i) =>
    JSON.stringify({
      Datetime: new Date(BASE + i * 5 * 60_000).toISOString(),
      Action: 'allow',
      HTTPHost: HOST,
      PolicyName: POLICY,
      HTTPStatusCode: 200,
      HTTPMethod: 'GET',
      RequestID: `${RUN}-${i}`,
      URL: url,
      Email: 'patterns@example.com',
    }),
  ).join('\n')
  await ingestHttp(playwright, batch, ROWS.length)
})

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test.describe(`${width} px, ${scheme}`, () => {
      test.use({ viewport: { width, height }, colorScheme: scheme })

      test('patterns of url: the three templates with their counts; Filter narrows the rows to one', async ({ page }) => {
        await page.goto(ROWS_URL)
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–25 of ${ROWS.length}`)
        // Not computed until asked for.
        await expect(page.getByTestId('patterns')).toHaveCount(0)
        await page.getByRole('link', { name: 'Patterns of url' }).click()
        await expect(page).toHaveURL(/[?&]patterns=url(&|$)/)
        const patterns = page.getByTestId('pattern')
        await expect(patterns).toHaveCount(KINDS.length)
        await expect(page.getByTestId('patterns-source')).toContainText(`All ${ROWS.length} matching rows of the range.`)
        const shown = await patterns.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent!.trim())))
        expect(shown).toEqual(KINDS.map((k) => [k.template, fmt(k.rows), `${((100 * k.rows) / ROWS.length).toFixed(2).replace(/(\.\d{2}\d*?)0+$/, '$1')} %`]))
        await expect(page.getByRole('table', { name: /Patterns of url/ })).toBeVisible()
        // The page itself never scrolls sideways, on a phone either.
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
        await page.getByTestId('patterns').scrollIntoViewIfNeeded()
        await page.screenshot({ path: `${SHOTS}/patterns-${width}-${scheme}.png`, fullPage: width > 1000 })
        await axe(page)

        // Filter by the second template: only its rows remain, and the patterns stay open.
        const second = KINDS[1]
        await patterns
          .nth(1)
          .getByRole('link', { name: `Filter rows matching ${second.template}` })
          .click()
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${second.rows} of ${second.rows}`)
        await expect(page).toHaveURL(/[?&]patterns=url(&|$)/)
        await expect(page.getByTestId('pattern')).toHaveCount(1)
        await expect(page.getByTestId('pattern')).toHaveAttribute('data-count', String(second.rows))
        expect(new URL(page.url()).searchParams.get('filter')).toBe(`${FILTER} AND "url" LIKE 'https://${HOST}/sessions/%'`)

        // Another column from the select: one template for the one host.
        await page.getByRole('form', { name: 'Patterns' }).getByLabel('Column').selectOption('http_host')
        await page.getByRole('button', { name: 'Show patterns' }).click()
        await expect(page).toHaveURL(/[?&]patterns=http_host(&|$)/)
        await expect(page.getByTestId('pattern')).toHaveCount(1)
        await expect(page.getByTestId('pattern').locator('td').first()).toHaveText(HOST)
        if (width < 1000) await page.screenshot({ path: `${SHOTS}/patterns-${width}-${scheme}-host.png` })
      })
    })
  }
}

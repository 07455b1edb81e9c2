import AxeBuilder from '@axe-core/playwright'
import { expect, test, type Page } from './fixtures'

// axe-core over every query page, light and dark: no violation of serious or critical impact.
// Plus the dark scheme's primary button and active tabs, measured directly: white text on the
// accent colour is where a dark palette most easily falls below 4.5:1.

// 25 rows per page: the markup is the same as with 100, and axe's contrast pass stays quick.
const PAGES: Array<[string, string, ((page: Page) => Promise<void>)?]> = [
  ['rows', '/query?dataset=requests&range=7d&limit=25'],
  ['rows, 40 columns', '/query?dataset=sessions&range=7d&limit=25'],
  ['rows, filtered, local time', '/query?dataset=dns&range=7d&limit=25&filter=rcode = 3&tz=Europe/Berlin'],
  ['rows, nothing found', "/query?dataset=http&range=7d&filter=http_host = 'none.example'"],
  ['rows, rejected filter', '/query?dataset=http&range=7d&filter=nope = 1'],
  ['rows, malformed link', '/query?limit=abc&dataset=nope'],
  ['rows, sorted', '/query?dataset=requests&range=7d&limit=25&sort=-duration_ms'],
  [
    'histogram as a table',
    '/query?dataset=dns&range=7d&limit=25',
    async (page) => {
      await page.getByText(/^Histogram as a table/).click()
      await expect(page.getByTestId('histogram-table')).toBeVisible()
    },
  ],
  [
    'row detail',
    '/query?dataset=http&range=7d&limit=25',
    async (page) => {
      await page.getByRole('button', { name: 'Details of row 1', exact: true }).click()
      await expect(page.getByRole('dialog')).toBeVisible()
    },
  ],
  [
    'filter suggestions',
    '/query?dataset=requests&range=7d&limit=25',
    async (page) => {
      await page.getByLabel('Filter (SQL WHERE fragment)').pressSequentially('st')
      await expect(page.getByRole('listbox')).toBeVisible()
    },
  ],
  [
    'column picker',
    '/query?dataset=sessions&range=7d&limit=25',
    async (page) => {
      await page.getByText('Columns: 40 of 40 shown').click()
      await expect(page.getByRole('form', { name: 'Columns to show' })).toBeVisible()
    },
  ],
  ['dashboard', '/query/dashboard?dataset=requests&range=7d'],
  ['dashboard, sessions', '/query/dashboard?dataset=sessions&range=7d'],
  ['saved and history', '/query/saved'],
  ['unknown address', '/query/no-such-page'],
]

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme })
    for (const [name, path, prepare] of PAGES) {
      test(`axe: ${name}`, async ({ page }) => {
        await page.goto(path)
        await prepare?.(page)
        const { violations } = await new AxeBuilder({ page }).analyze()
        const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)).toEqual([])
      })
    }
  })
}

test.describe('refused', () => {
  // A relayed request is not the local operator: the proxy answers with its refusal page.
  test.use({ extraHTTPHeaders: { 'x-forwarded-for': '203.0.113.7' } })
  for (const scheme of ['light', 'dark'] as const)
    test(`axe: the refusal page (${scheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme })
      const res = await page.goto('/query')
      expect(res!.status()).toBe(403)
      const { violations } = await new AxeBuilder({ page }).analyze()
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([])
    })
})

function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+(\.\d+)?/g)!
    .slice(0, 3)
    .map((v) => {
      const c = Number(v) / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

test.describe('dark scheme contrast', () => {
  test.use({ colorScheme: 'dark' })
  test('the primary button and the active tab reach 4.5:1', async ({ page }) => {
    await page.goto('/query?dataset=dns&range=7d&filter=rcode = 3')
    const colours = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor])
    for (const [what, selector] of [
      ['Run button', 'form[aria-label="Query"] button[type="submit"]'],
      ['active dataset tab', 'nav[aria-label="Datasets"] a[aria-current="page"]'],
      ['active time zone', 'nav[aria-label="Time zone"] a[aria-current="true"]'],
    ]) {
      const [fg, bg] = await colours(selector)
      expect(contrast(fg, bg), what).toBeGreaterThanOrEqual(4.5)
    }
  })
})

import { mkdirSync } from 'node:fs'
import { axe, expect, ingestHttp, test, type Page } from './fixtures'
import { formatTime } from '../../lib/view/time'

// Group by time: the group-by page split per hour or day, checked against rows this run writes (a
// Logpush batch of gateway HTTP rows with a policy of their own, spread over seven hours). The
// expected counts per (hour, group) are computed here from those rows. Driven at 1440 px and 390 px,
// light and dark, with axe (no serious or critical violation). Screenshots go to test-results/group-time/.

const HOUR = 3_600_000
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`
const HOST = `group-time-${RUN}.e2e.test`
const POLICY = `group-time-${RUN}`
const BASE = Math.floor(Date.now() / HOUR) * HOUR - 9 * HOUR
const ROWS = Array.from({ length: 36 }, (_, i) => ({
  time: BASE + i * 11 * 60_000 + 30_000,
  action: i % 3 === 0 ? 'block' : 'allow',
  method: i % 4 === 0 ? 'POST' : 'GET',
}))
const FILTER = `policy_name = '${POLICY}'`
const GROUP_URL = `/query/group?dataset=http&range=24h&filter=${encodeURIComponent(FILTER)}`
const SHOTS = 'test-results/group-time'

/** `2026-11-27 08:00:00 UTC`, written out here rather than by the page's formatter. */
const utcHour = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
/** Rows per (period start, key), periods of `size` ms cut `offsetMs` from UTC. */
function perPeriod(key: (r: (typeof ROWS)[number]) => string, size: number, offsetMs = 0): Map<string, number> {
  const m = new Map<string, number>()
  for (const r of ROWS) {
    const k = `${Math.floor((r.time + offsetMs) / size) * size - offsetMs}|${key(r)}`
    m.set(k, (m.get(k) ?? 0) + 1)
  }
  return m
}

test.describe.configure({ mode: 'serial' })

test.beforeAll(async ({ playwright }) => {
  mkdirSync(SHOTS, { recursive: true })
  const batch = ROWS.map((r, i) =>
    JSON.stringify({
      Datetime: new Date(r.time).toISOString(),
      Action: r.action,
      HTTPHost: HOST,
      PolicyName: POLICY,
      HTTPStatusCode: r.action === 'block' ? 403 : 200,
      HTTPMethod: r.method,
      RequestID: `${RUN}-${i}`,
      URL: `https://${HOST}/${i}`,
      Email: 'group-time@example.com',
    }),
  ).join('\n')
  await ingestHttp(playwright, batch, ROWS.length)
})

/** The table's rows as text cells. */
const cells = (page: Page) =>
  page.getByTestId('group-row').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())))

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  for (const scheme of ['light', 'dark'] as const) {
    test.describe(`${width} px, ${scheme}`, () => {
      test.use({ viewport: { width, height }, colorScheme: scheme })

      test('per hour: each (hour, action) count of the rows written, hours in order, and a group opens exactly its rows', async ({ page }) => {
        await page.goto(`${GROUP_URL}&by=action&every=hour`)
        const expected = perPeriod((r) => r.action, HOUR)
        await expect(page.getByTestId('group-count')).toHaveText(String(expected.size))
        await expect(page.getByTestId('group-total')).toHaveText(String(ROWS.length))
        await expect(page.getByTestId('group-source')).toHaveText('the rows')
        await expect(page.getByTestId('group-period-header')).toHaveText('Hour')
        await expect(page.getByTestId('group-row')).toHaveCount(expected.size)
        await expect(page.getByTestId('group-cut')).toHaveCount(0)
        const table = await cells(page)
        const byText = new Map([...expected].map(([k, n]) => [`${utcHour(Number(k.split('|')[0]))}|${k.split('|')[1]}`, n]))
        const seen = new Set<string>()
        for (const [hour, action, count] of table) {
          expect(Number(count), `${hour} ${action}`).toBe(byText.get(`${hour}|${action}`))
          seen.add(`${hour}|${action}`)
        }
        expect(seen.size).toBe(expected.size)
        // Hours ascending; within an hour, the larger group first.
        const hours = table.map((c) => c[0])
        expect(hours).toEqual([...hours].sort())
        for (let i = 1; i < table.length; i++) if (table[i][0] === table[i - 1][0]) expect(Number(table[i - 1][2])).toBeGreaterThanOrEqual(Number(table[i][2]))

        await page.screenshot({ path: `${SHOTS}/group-hour-${width}-${scheme}.png`, fullPage: true })
        await axe(page)
        if (width < 1000) {
          // The page does not scroll sideways; the table scrolls within its box.
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
          const wrap = page.getByTestId('group-table').locator('xpath=..')
          expect(await wrap.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true)
        }

        // The third group's link: its hour (a custom range) and its action, exactly its rows.
        const [hour, action, count] = table[2]
        await page.getByTestId('group-link').nth(2).click()
        await expect(page).toHaveURL(/range=custom/)
        await expect(page.getByTestId('row-count')).toHaveText(`Rows 1–${count} of ${count}`)
        const start = Date.parse(hour.replace(' UTC', 'Z').replace(' ', 'T'))
        expect(Number(count)).toBe(ROWS.filter((r) => r.action === action && r.time >= start && r.time < start + HOUR).length)
      })
    })
  }
}

test.describe('per hour and per day, 1440 px', () => {
  test.use({ viewport: { width: 1440, height: 900 } })

  test('the filtered rollup column per hour is read from the rollup, with the counts of the rows written', async ({ page }) => {
    await page.goto(`${GROUP_URL}&by=policy_name&every=hour`)
    await expect(page.getByTestId('group-source')).toHaveText('the rollup')
    const expected = perPeriod(() => POLICY, HOUR)
    await expect(page.getByTestId('group-row')).toHaveCount(expected.size)
    const table = await cells(page)
    expect(new Map(table.map(([hour, policy, count]) => [`${hour}|${policy}`, Number(count)]))).toEqual(
      new Map([...expected].map(([k, n]) => [`${utcHour(Number(k.split('|')[0]))}|${POLICY}`, n])),
    )
  })

  test('in a half-hour time zone the hours are the zone’s, from the rows', async ({ page }) => {
    await page.goto(`${GROUP_URL}&by=policy_name&every=hour&tz=Asia/Kolkata`)
    await expect(page.getByTestId('group-source')).toHaveText('the rows')
    const expected = perPeriod(() => POLICY, HOUR, 330 * 60_000)
    await expect(page.getByTestId('group-row')).toHaveCount(expected.size)
    const table = await cells(page)
    expect(new Map(table.map(([hour, , count]) => [hour, Number(count)]))).toEqual(
      new Map([...expected].map(([k, n]) => [formatTime(Number(k.split('|')[0]), 'Asia/Kolkata'), n])),
    )
    // Local hours (:00 in Kolkata, :30 in UTC), whose counts differ from the UTC hours'.
    expect(table[0][0]).toMatch(/:00:00 UTC\+05:30$/)
    expect([...expected.values()]).not.toEqual([...perPeriod(() => POLICY, HOUR).values()])
    await page.screenshot({ path: `${SHOTS}/group-hour-kolkata-1440.png`, fullPage: true })
  })

  test('Per in the form splits per day and keeps it in the URL', async ({ page }) => {
    await page.goto(`${GROUP_URL}&by=action`)
    await expect(page.getByTestId('group-count')).toHaveText('2')
    await page.getByRole('form', { name: 'Group by' }).getByLabel('Per').selectOption('day')
    await page.getByRole('button', { name: 'Group', exact: true }).click()
    await expect(page).toHaveURL(/every=day/)
    await expect(page.getByTestId('group-period-header')).toHaveText('Day')
    await expect(page.getByRole('form', { name: 'Group by' }).getByLabel('Per')).toHaveValue('day')
    const expected = perPeriod((r) => r.action, 24 * HOUR)
    await expect(page.getByTestId('group-count')).toHaveText(String(expected.size))
    const table = await cells(page)
    expect(new Map(table.map(([day, action, count]) => [`${day}|${action}`, Number(count)]))).toEqual(
      new Map([...expected].map(([k, n]) => [`${utcHour(Number(k.split('|')[0]))}|${k.split('|')[1]}`, n])),
    )
  })
})

import { expect, test, type Page } from './fixtures'

// Sorting the rows (column headers with aria-sort, the Sort by control, the SQL shown, paging) and
// the histogram above them (dragging narrows the range; the table under it does the same from the
// keyboard). Over the demo rows seeded before the server started, as the local operator.

const rows = (page: Page) => page.getByTestId('rows')
const column = (page: Page, name: string) => rows(page).locator(`td[data-col="${name}"]`).allTextContents()
const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name)
const utcMs = (text: string) => Date.parse(`${text.replace(/ UTC$/, '').replace(' ', 'T')}Z`)

test('a column header sorts by it and flips the direction; aria-sort and the SQL follow; Next pages by offset', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=7d&cols=time,status,duration_ms,user_agent&limit=25')
  const header = (name: string) => page.getByRole('columnheader', { name, exact: true })
  await expect(header('time')).toHaveAttribute('aria-sort', 'descending')
  // Only indexed columns sort: user_agent's header is plain text.
  await expect(header('user_agent').getByRole('link')).toHaveCount(0)

  await header('duration_ms').getByRole('link').click()
  await expect(page).toHaveURL(/sort=-duration_ms/)
  await expect(header('duration_ms')).toHaveAttribute('aria-sort', 'descending')
  await expect(header('time')).not.toHaveAttribute('aria-sort')
  const down = (await column(page, 'duration_ms')).map(Number)
  expect(down).toHaveLength(25)
  expect(down).toEqual([...down].sort((a, b) => b - a))
  await expect(page.getByTestId('sql').first()).toContainText('ORDER BY "duration_ms" DESC, "time" DESC, "id" DESC LIMIT $3 OFFSET $4')

  await header('duration_ms').getByRole('link').click()
  await expect(page).toHaveURL(/sort=duration_ms/)
  await expect(header('duration_ms')).toHaveAttribute('aria-sort', 'ascending')
  const up = (await column(page, 'duration_ms')).map(Number)
  expect(up).toEqual([...up].sort((a, b) => a - b))
  await expect(page.getByTestId('sql').first()).toContainText('ORDER BY "duration_ms" ASC, "time" ASC, "id" ASC')

  // Sorted by another column, Next continues by offset (no keyset cursor) and stays in order.
  await page.getByRole('navigation', { name: 'Result pages' }).getByRole('link', { name: 'Next →' }).click()
  await expect(page).toHaveURL(/offset=25/)
  expect(param(page, 'cursor')).toBeNull()
  await expect(page.getByTestId('row-count')).toHaveText(/^Rows 26–50 of /)
  const next = (await column(page, 'duration_ms')).map(Number)
  expect(next[0]).toBeGreaterThanOrEqual(up.at(-1)!)
  expect(next).toEqual([...next].sort((a, b) => a - b))
})

test('time sorts oldest first and pages by keyset; the keyboard sorts too', async ({ page }) => {
  await page.goto('/query?dataset=dns&range=7d&cols=datetime,rcode&limit=25')
  // Streamed rows and the client scripts in place before the keyboard and clicks act on them.
  await page.waitForLoadState('networkidle')
  const header = (name: string) => page.getByRole('columnheader', { name, exact: true })
  await header('datetime').getByRole('link').click()
  await expect(page).toHaveURL(/sort=datetime/)
  await expect(header('datetime')).toHaveAttribute('aria-sort', 'ascending')
  const first = (await column(page, 'datetime')).map(utcMs)
  expect(first).toEqual([...first].sort((a, b) => a - b))
  await page.getByRole('navigation', { name: 'Result pages' }).getByRole('link', { name: 'Next →' }).click()
  await expect(page).toHaveURL(/cursor=/)
  await expect(page.getByTestId('row-count')).toHaveText(/^Rows 26–50 of /)
  const second = (await column(page, 'datetime')).map(utcMs)
  expect(second[0]).toBeGreaterThanOrEqual(first.at(-1)!)

  // A header link from the keyboard: rcode is a number, so it starts descending.
  await header('rcode').getByRole('link').focus()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/sort=-rcode/)
  expect(param(page, 'cursor')).toBeNull()
  await expect(header('rcode')).toHaveAttribute('aria-sort', 'descending')

  // The Sort by control in the form, then Run, without the mouse.
  const select = page.getByLabel('Sort by')
  await expect(select).toHaveValue('-rcode')
  await select.focus()
  await select.selectOption('query_name')
  await page.getByLabel('Filter (SQL WHERE fragment)').focus()
  await page.keyboard.press('Control+Enter')
  await expect(page).toHaveURL(/sort=query_name/)
  await expect(page.getByTestId('sql').first()).toContainText('ORDER BY "query_name" ASC, "datetime" ASC, "id" ASC')
})

test('an unsortable column in the URL gets a sentence and the newest rows', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=7d&sort=-user_agent&limit=25')
  await expect(page.getByRole('status').filter({ hasText: 'Rows cannot be sorted by “user_agent”' })).toBeVisible()
  await expect(page.getByRole('columnheader', { name: 'time', exact: true })).toHaveAttribute('aria-sort', 'descending')
})

test('dragging across the histogram narrows the range to the buckets under the drag, in the URL and the rows', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto('/query?dataset=dns&range=7d&cols=datetime,query_name&limit=500')
  const chart = page.getByTestId('histogram-chart')
  await expect(chart.locator('canvas')).toBeVisible()
  const before = Number((await page.getByTestId('histogram-total').textContent())!.replace(/,/g, ''))
  const box = (await chart.locator('.u-over').boundingBox())!
  const y = box.y + box.height / 2
  await page.mouse.move(box.x + box.width * 0.4, y)
  await page.mouse.down()
  await page.mouse.move(box.x + box.width * 0.5, y, { steps: 8 })
  await page.mouse.move(box.x + box.width * 0.6, y, { steps: 8 })
  await page.mouse.up()

  await expect(page).toHaveURL(/range=custom/)
  const [from, to] = [utcMs(param(page, 'from')!), utcMs(param(page, 'to')!)]
  // About a fifth of the 7 days, widened to whole hours (the buckets of a 7-day histogram).
  expect(from % 3_600_000).toBe(0)
  expect(to % 3_600_000).toBe(0)
  expect((to - from) / 3_600_000).toBeGreaterThan(7 * 24 * 0.2 - 3)
  expect((to - from) / 3_600_000).toBeLessThan(7 * 24 * 0.2 + 3)
  await expect(page.getByLabel(/^From/)).toHaveValue(param(page, 'from')!)

  // The rows and the histogram are of the new range, and agree.
  await expect(page.getByTestId('range')).toHaveText(`${param(page, 'from')} UTC → ${param(page, 'to')} UTC`)
  const times = (await column(page, 'datetime')).map(utcMs)
  expect(times.length).toBeGreaterThan(0)
  for (const t of times) expect(t >= from && t < to, new Date(t).toISOString()).toBe(true)
  const after = Number((await page.getByTestId('histogram-total').textContent())!.replace(/,/g, ''))
  expect(after).toBeLessThan(before)
  await expect(page.getByTestId('row-count')).toHaveText(new RegExp(` of ${new Intl.NumberFormat('en').format(after)}$`))
})

test('the histogram as a table: its bucket links narrow the range from the keyboard', async ({ page }) => {
  await page.goto('/query?dataset=dns&range=7d&cols=datetime&limit=500')
  // Streamed rows and the client scripts in place before the keyboard and clicks act on them.
  await page.waitForLoadState('networkidle')
  const histogram = page.getByTestId('histogram')
  const summary = histogram.getByText(/^Histogram as a table/)
  await summary.focus()
  await page.keyboard.press('Enter')
  const firstRow = histogram.getByTestId('histogram-table').locator('tbody tr').first()
  const count = (await firstRow.locator('td').last().textContent())!
  const link = firstRow.getByRole('link')
  const start = (await link.textContent())!
  await link.focus()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/range=custom/)
  await expect(page.getByTestId('histogram-total')).toHaveText(count)
  await expect(page.getByTestId('row-count')).toHaveText(new RegExp(` of ${count}$`))
  for (const t of (await column(page, 'datetime')).map(utcMs)) expect(t - utcMs(start)).toBeLessThan(3_600_000)
})

test('at 390 px the rows page with its histogram does not scroll sideways, and the histogram axes are not clipped', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto('/query?dataset=sessions&range=7d&limit=25')
  const canvas = page.getByTestId('histogram-chart').locator('canvas')
  await expect(canvas).toBeVisible()
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
  // uPlot draws axis labels on the canvas: a clipped label leaves ink in its left-most pixels.
  const inkAtEdge = await canvas.evaluate((c: HTMLCanvasElement) => {
    const { data } = c.getContext('2d')!.getImageData(0, 0, 3, c.height)
    let ink = 0
    for (let i = 3; i < data.length; i += 4) ink += data[i] > 0 ? 1 : 0
    return ink
  })
  expect(inkAtEdge).toBe(0)
})

import { expect, test, type Page } from './fixtures'

// The rows page as people use it: row detail, click to filter, columns, keyboard, time zones,
// titles and layout. Over the demo rows seeded before the server started, as the local operator.

const filterParam = (page: Page) => new URL(page.url()).searchParams.get('filter')
const columnValues = async (page: Page, name: string) => {
  await expect(page.getByRole('columnheader', { name, exact: true })).toBeVisible() // the rows have streamed in
  const index = (await page.getByRole('columnheader').allTextContents()).indexOf(name)
  expect(index).toBeGreaterThan(0)
  return page
    .getByTestId('rows')
    .locator(`tbody tr td:nth-child(${index + 1})`)
    .allTextContents()
}

test('row detail shows every field in full, copies a value and filters by it', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await page.goto('/query?dataset=requests&range=7d&cols=time,status')
  await page.getByRole('button', { name: 'Details of row 1', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Row 1' })
  await expect(dialog).toBeVisible()
  // Every column of the dataset, not only the two shown in the table.
  await expect(dialog.locator('dt')).toHaveCount(15)
  const agent = dialog.locator('code[data-field="user_agent"]')
  const text = (await agent.textContent())!
  expect(text.length).toBeGreaterThan(3)
  // Shown in full: wrapped, never cut off.
  expect(await agent.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true)

  const requestId = (await dialog.locator('code[data-field="request_id"]').textContent())!
  await dialog.getByRole('button', { name: 'Copy request_id' }).click()
  await expect(dialog).toContainText('Copied request_id.')
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(requestId)

  await dialog.getByRole('link', { name: '= Filter by request_id' }).click()
  await expect(page).toHaveURL(/filter=/)
  expect(filterParam(page)).toBe(`"request_id" = '${requestId}'`)
  await expect(page.getByTestId('row-count')).toHaveText('Rows 1–1 of 1')
})

test('a table cell adds column = value to the filter, Alt-click adds !=, and the server checks it', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=7d')
  const firstMethod = page.getByTestId('rows').locator('tbody tr').first().locator('td[data-col="method"]')
  const method = (await firstMethod.textContent())!
  await firstMethod.click()
  await expect(page).toHaveURL(/filter=/)
  expect(filterParam(page)).toBe(`"method" = '${method}'`)
  expect(new Set(await columnValues(page, 'method'))).toEqual(new Set([method]))

  const firstStatus = page.getByTestId('rows').locator('tbody tr').first().locator('td[data-col="status"]')
  const status = (await firstStatus.textContent())!
  await firstStatus.click({ modifiers: ['Alt'] })
  await expect(page).toHaveURL(/status/)
  expect(filterParam(page)).toBe(`"method" = '${method}' AND "status" != ${status}`)
  const statuses = await columnValues(page, 'status')
  expect(statuses.length).toBeGreaterThan(0)
  expect(statuses).not.toContain(status)
  // As run: regenerated from the checked parse tree.
  await expect(page.getByText('Filter as run')).toContainText(`method = '${method}' AND status <> ${status}`)
})

test('dashboard bars and top-10 entries filter by their value, Alt-click excludes it', async ({ page }) => {
  await page.goto('/query/dashboard?dataset=dns&range=7d')
  const domains = page.getByRole('region', { name: 'Top domains' })
  const top = domains.getByRole('link').first()
  const domain = (await top.textContent())!
  await top.click()
  await expect(page).toHaveURL(/\/dashboard\?.*filter=/)
  expect(filterParam(page)).toBe(`"query_name" = '${domain}'`)
  await expect(page.getByRole('region', { name: 'Top domains' }).getByRole('listitem')).toHaveCount(1)

  const decisions = page.getByRole('region', { name: 'Decisions' })
  const first = decisions.getByRole('link').first()
  const decision = (await first.textContent())!
  await first.click({ modifiers: ['Alt'] })
  await expect(page).toHaveURL(/resolver_decision/)
  expect(filterParam(page)).toBe(`"query_name" = '${domain}' AND "resolver_decision" != '${decision}'`)
  await expect(page.getByRole('region', { name: 'Decisions' }).getByRole('listitem').first()).toBeVisible()
  expect(await page.getByRole('region', { name: 'Decisions' }).getByRole('link').allTextContents()).not.toContain(decision)
})

test('columns can be shown and hidden; the choice lives in the URL and byte counts read in KB/MB/GB', async ({ page }) => {
  await page.goto('/query?dataset=sessions&range=7d')
  const picker = page.getByText('Columns: 40 of 40 shown')
  await picker.click()
  const form = page.getByRole('form', { name: 'Columns to show' })
  await form.getByRole('button', { name: 'None' }).click()
  await form.getByRole('checkbox', { name: 'email' }).check()
  await form.getByRole('checkbox', { name: 'bytes_sent' }).check()
  await form.getByRole('button', { name: 'Show 2 columns' }).click()
  await expect(page).toHaveURL(/cols=email%2Cbytes_sent/)
  await expect(page.getByRole('columnheader')).toHaveText(['Details', 'email', 'bytes_sent'])
  await expect(page.getByTestId('export')).toContainText('the 2 shown columns of 40')

  const bytes = page.getByTestId('rows').locator('tbody td[data-col="bytes_sent"]:not(.null)').first()
  await expect(bytes).toHaveText(/^\d+(\.\d+)? (B|KB|MB|GB)$/)
  await expect(bytes).toHaveAttribute('title', /^[\d,]+ bytes/)

  await page.reload()
  await expect(page.getByRole('columnheader')).toHaveText(['Details', 'email', 'bytes_sent'])
  await expect(page.getByText('Columns: 2 of 40 shown')).toBeVisible()
})

test('keyboard: skip link, filter before Run, column completion, Ctrl+Enter runs', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=7d')
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Skip to results' })
  await expect(skip).toBeFocused()
  await page.keyboard.press('Enter')
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('results')

  const filter = page.getByLabel('Filter (SQL WHERE fragment)')
  await filter.focus()
  await page.keyboard.press('Tab')
  await expect(page.getByRole('button', { name: 'Run' })).toBeFocused()
  await page.keyboard.press('Shift+Tab')
  await expect(filter).toBeFocused()
  await page.keyboard.press('Shift+Tab')
  await expect(page.getByLabel('Sort by')).toBeFocused()
  await page.keyboard.press('Shift+Tab')
  await expect(page.getByLabel('Rows per page')).toBeFocused()

  await filter.focus()
  await page.keyboard.type('dur')
  const list = page.getByRole('listbox', { name: 'Columns' })
  await expect(list.getByRole('option')).toHaveText([/^duration_ms/])
  await expect(filter).toHaveAttribute('aria-activedescendant', /.+/)
  await page.keyboard.press('Enter')
  await expect(list).toBeHidden()
  await expect(filter).toHaveValue('duration_ms')
  await page.keyboard.type(' > 50 AND met')
  await page.keyboard.press('Tab')
  await expect(filter).toHaveValue('duration_ms > 50 AND method')
  await page.keyboard.type(" = 'GET'")
  await page.keyboard.press('Control+Enter')
  await expect(page).toHaveURL(/filter=duration_ms/)
  expect(filterParam(page)).toBe("duration_ms > 50 AND method = 'GET'")
  expect(new Set(await columnValues(page, 'method'))).toEqual(new Set(['GET']))
})

test.describe('in a browser in Berlin', () => {
  test.use({ timezoneId: 'Europe/Berlin' })

  test('times read YYYY-MM-DD HH:mm:ss UTC, and the local-time choice is kept in the URL', async ({ page }) => {
    // A gateway dataset: nothing writes to it while the test runs, so both pages show the same rows.
    await page.goto('/query?dataset=dns&range=7d')
    const times = await columnValues(page, 'datetime')
    for (const t of times) expect(t).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
    await expect(page.getByTestId('range')).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC → \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)

    await page.getByRole('navigation', { name: 'Time zone' }).getByRole('link', { name: 'Local (Europe/Berlin)' }).click()
    await expect(page).toHaveURL(/tz=Europe%2FBerlin/)
    const local = await columnValues(page, 'datetime')
    expect(local).toHaveLength(times.length)
    for (const t of local) expect(t).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+0[12]:00$/)
    // The same instants, one or two hours later on the clock.
    const utcMs = Date.parse(times[0].replace(' UTC', 'Z').replace(' ', 'T'))
    const [, wall, offset] = /^(.*) UTC\+(\d\d):00$/.exec(local[0])!
    expect(Date.parse(`${wall.replace(' ', 'T')}Z`) - Number(offset) * 3_600_000).toBe(utcMs)
    await expect(page.getByText('From (Europe/Berlin)')).toBeVisible()

    // Kept while moving around.
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Dashboard' }).click()
    await expect(page).toHaveURL(/\/dashboard\?.*tz=Europe%2FBerlin/)
    await page.getByRole('navigation', { name: 'Time zone' }).getByRole('link', { name: 'UTC' }).click()
    await expect(page).not.toHaveURL(/tz=/)
    await expect(page.getByTestId('range')).toContainText(' UTC → ')
  })
})

test('the page title names the dataset, and the active quick filter is highlighted', async ({ page }) => {
  await page.goto('/query?dataset=dns&range=7d')
  await expect(page).toHaveTitle('Gateway DNS · Rows · Query application')
  const blocked = page.getByRole('group', { name: 'Quick filters' }).getByRole('link', { name: 'Blocked' })
  const before = await blocked.evaluate((el) => getComputedStyle(el).backgroundColor)
  await blocked.click()
  await expect(blocked).toHaveAttribute('aria-current', 'true')
  expect(await blocked.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(before)
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Dashboard' }).click()
  await expect(page).toHaveTitle('Gateway DNS · Dashboard · Query application')
})

test('the table header stays in view while scrolling the rows', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto('/query?dataset=requests&range=30d&limit=500')
  const wrap = page.getByTestId('rows')
  // The histogram and notices sit above the table: bring the table's top into view, then scroll its rows.
  await wrap.evaluate((el) => el.scrollIntoView({ block: 'start' }))
  await wrap.evaluate((el) => el.scrollBy(0, 3000))
  const header = page.getByRole('columnheader', { name: 'status' })
  const [w, h] = [await wrap.boundingBox(), await header.boundingBox()]
  expect(await wrap.evaluate((el) => el.scrollTop)).toBeGreaterThan(1000)
  expect(Math.abs(h!.y - w!.y)).toBeLessThan(3)
  await expect(header).toBeInViewport()
})

test('the dashboard fits a 390 px screen without sideways scrolling, and chart labels are not clipped', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  for (const dataset of ['requests', 'dns', 'http', 'network', 'sessions']) {
    await page.goto(`/query/dashboard?dataset=${dataset}&range=7d`)
    await expect(page.getByTestId('timeseries-chart').first().locator('canvas')).toBeVisible()
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), dataset).toBeLessThanOrEqual(0)
  }
  // uPlot draws axis labels on the canvas: a clipped label leaves ink in its left-most pixels.
  for (const chart of await page.getByTestId('timeseries-chart').all()) {
    const inkAtEdge = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
      const ctx = canvas.getContext('2d')!
      const { data } = ctx.getImageData(0, 0, 3, canvas.height)
      let ink = 0
      for (let i = 3; i < data.length; i += 4) ink += data[i] > 0 ? 1 : 0
      return ink
    })
    expect(inkAtEdge).toBe(0)
  }
})

import { readFileSync } from 'node:fs'
import { expect, test, type Page } from './fixtures'

// Export of every matching row, as the page describes it.

async function download(page: Page, format: 'CSV' | 'NDJSON') {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export').getByRole('link', { name: format }).click()])
  return { name: file.suggestedFilename(), bytes: readFileSync((await file.path())!) }
}

const total = async (page: Page) => Number((await page.getByTestId('row-count').textContent())!.match(/of ([\d,]+)/)![1].replace(/,/g, ''))

test('CSV: every matching row, a UTF-8 byte-order mark, formulas defused, the shown columns', async ({ page }) => {
  await page.goto('/query?dataset=requests&range=30d&limit=25&filter=status >= 400')
  const count = await total(page)
  expect(count).toBeGreaterThan(25)
  await expect(page.getByTestId('export')).toHaveText(
    `Export all ${count.toLocaleString('en')} matching rows, all 15 columns, newest first, times in ISO 8601 UTC: CSV (UTF-8) · NDJSON`,
  )
  const { name, bytes } = await download(page, 'CSV')
  expect(name).toMatch(/^requests-\d{8}T\d{6}Z-\d{8}T\d{6}Z\.csv$/)
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
  const lines = bytes.toString('utf8').slice(1).trim().split('\n')
  expect(lines[0]).toBe(
    'time,request_id,method,route,query,status,duration_ms,client_ip,country,user_agent,referrer,api_key_present,rate_limited,mcp_tool,demo',
  )
  expect(lines).toHaveLength(count + 1)
  const statuses = lines.slice(1).map((l) => Number(l.split(',')[5]))
  expect(statuses.every((s) => s >= 400)).toBe(true)
})

test('NDJSON: one object per row with the shown columns only', async ({ page }) => {
  await page.goto("/query?dataset=sessions&range=30d&cols=email,bytes_sent,session_start_time&filter=protocol = 'udp'")
  const count = await total(page)
  await expect(page.getByTestId('export')).toContainText(`Export all ${count.toLocaleString('en')} matching rows, the 3 shown columns of 40`)
  const { name, bytes } = await download(page, 'NDJSON')
  expect(name).toMatch(/^sessions-.*\.ndjson$/)
  const rows = bytes
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(rows).toHaveLength(count)
  for (const r of rows) expect(Object.keys(r)).toEqual(['session_start_time', 'email', 'bytes_sent'])
  const times = rows.map((r) => Date.parse(r.session_start_time))
  expect(times).toEqual([...times].sort((a, b) => b - a))
})

test('no export link when nothing matches', async ({ page }) => {
  await page.goto("/query?dataset=http&range=7d&filter=http_host = 'no-such-host.example'")
  await expect(page.getByText('No rows match this range and filter.')).toBeVisible()
  await expect(page.getByTestId('export')).toHaveCount(0)
})

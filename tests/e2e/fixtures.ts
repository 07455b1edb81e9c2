import AxeBuilder from '@axe-core/playwright'
import { test as base, expect, type Page, type PlaywrightWorkerArgs } from '@playwright/test'
import config from '../../playwright.config'

export { expect } from '@playwright/test'
export type { APIRequestContext, Page, Route } from '@playwright/test'

// The pages' test: `page.goto` and `page.reload` return once React has hydrated the page (the root
// layout marks <html data-hydrated>), so a click reaches the component's handler rather than the
// browser's default (a form submitted natively, a button with no effect). A response that is not an
// App Router page (JSON, a download, the API reference's own HTML) has nothing to wait for.

async function hydrated(page: Page) {
  await page.waitForFunction(() => !('__next_f' in self) || document.documentElement.hasAttribute('data-hydrated'))
}

export const test = base.extend({
  page: async ({ page }, provide) => {
    const goto = page.goto.bind(page)
    const reload = page.reload.bind(page)
    page.goto = async (...args) => {
      const response = await goto(...args)
      await hydrated(page)
      return response
    }
    page.reload = async (...args) => {
      const response = await reload(...args)
      await hydrated(page)
      return response
    }
    await provide(page)
  },
})

/** axe-core over the page as it is: no serious or critical violation. */
export async function axe(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`)).toEqual([])
}

/** Posts gateway HTTP rows (Logpush NDJSON lines) to the ingest endpoint, the way real rows arrive, and checks each was inserted. */
export async function ingestHttp(playwright: PlaywrightWorkerArgs['playwright'], batch: string, rows: number) {
  const request = await playwright.request.newContext({ baseURL: config.use!.baseURL! })
  const res = await request.post('/query/ingest/http', {
    headers: { 'x-logpush-secret': 'e2e-logpush-secret-0123456789abcdef', 'content-type': 'application/x-ndjson' },
    data: batch,
  })
  expect(res.status(), await res.text()).toBe(200)
  expect(await res.json()).toMatchObject({ inserted: rows, malformed: 0 })
  await request.dispose()
}

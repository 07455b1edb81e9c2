import { AxeBuilder } from '@axe-core/playwright'
import { expect, test, type Page, type Route } from './fixtures'

// The landing page and the API reference in Chromium: links into the reference, the MCP client
// instructions, the server-rendered outline before Scalar has loaded, a console without warnings,
// and axe in light and dark mode.

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Waits until Scalar has rendered the document and replaced the outline. */
async function referenceLoaded(page: Page) {
  await expect(page.getByRole('navigation', { name: /^Sidebar/ })).toBeVisible({ timeout: 60_000 })
  await expect(page.getByRole('navigation', { name: 'Operations' })).toHaveCount(0)
}

/** The section Scalar rendered for an anchor (its ids carry a document prefix: `api-1/tag/…`). */
const section = (page: Page, anchor: string) => page.locator(`[id$="/${anchor}"]`).first()

/**
 * Holds back every script and style the page requests beyond those its HTML names (Scalar's chunks),
 * so the page stays in its before-Scalar state until `release()`.
 */
async function holdLazyChunks(page: Page, path: string) {
  const html = await (await page.request.get(path)).text()
  const held: Route[] = []
  let holding = true
  await page.route('**/_next/static/chunks/**', (route) => {
    const chunk = new URL(route.request().url()).pathname
    if (!holding || html.includes(chunk)) return route.continue()
    held.push(route)
  })
  return {
    held: () => held.length,
    release: async () => {
      holding = false
      await Promise.all(held.splice(0).map((r) => r.continue()))
    },
  }
}

async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze()
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
}

test.describe('landing page', () => {
  test('links each API group to its section of the reference', async ({ page }) => {
    await page.goto('/')
    const links = page.getByRole('list', { name: 'API groups' }).getByRole('link')
    await expect(links).toHaveCount(10)
    for (const href of await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))) expect(href).toMatch(/^\/api\/docs#tag\/[a-z-]+$/)
    await links.filter({ hasText: 'IP checker' }).click()
    await expect(page).toHaveURL(/\/api\/docs#tag\/ip-checker$/)
    await referenceLoaded(page)
    await expect(section(page, 'tag/ip-checker')).toBeInViewport()
  })

  test('shows how to connect an MCP client to this instance, and the configuration works', async ({ page, baseURL }) => {
    await page.goto('/')
    // No link to the bare endpoint: a browser can only GET it (405).
    await expect(page.locator('a[href$="/api/mcp"]')).toHaveCount(0)
    const mcpUrl = `${baseURL}/api/mcp`
    const config = JSON.parse(await page.getByLabel('MCP client configuration').innerText())
    expect(config).toEqual({ mcpServers: { 'utility-api': { type: 'http', url: mcpUrl } } })
    const curl = await page.getByLabel('curl example').innerText()
    expect(curl).toContain(`curl ${mcpUrl}`)

    // What the curl example sends, to the URL the configuration names.
    const body = curl.match(/-d '(.+)'/)![1]
    const headers = Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1], m[2]]))
    const answer = await page.request.post(config.mcpServers['utility-api'].url, { headers, data: body })
    expect(answer.status()).toBe(200)
    expect((await answer.json()).result.tools.length).toBeGreaterThan(0)

    await expect(page.getByRole('link', { name: 'Tool server reference' })).toHaveAttribute('href', '/api/docs#tag/tool-server')
  })
})

test.describe('API reference', () => {
  test('outlines every operation before Scalar loads; an outline link lands on its section once it has', async ({ page }) => {
    const doc = await (await page.request.get('/api/openapi.json')).json()
    const expected = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      OPERATION_METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} /api${path}`),
    )
    const chunks = await holdLazyChunks(page, '/api/docs')
    await page.goto('/api/docs')
    const outline = page.getByRole('navigation', { name: 'Operations' })
    await expect(outline).toBeVisible()
    await expect(page.getByRole('status')).toHaveText('Loading the interactive reference…')
    const links = outline.getByRole('listitem').getByRole('link')
    const listed = await links.evaluateAll((as) => as.map((a) => `${a.querySelector('[data-method]')?.textContent} ${a.querySelector('code')?.textContent}`))
    expect(listed.sort()).toEqual(expected.sort())
    for (const href of await links.evaluateAll((as) => as.map((a) => a.getAttribute('href'))))
      expect(href).toMatch(/^#tag\/[a-z-]+\/(GET|POST|PUT|PATCH|DELETE)\/[\w/{}.-]+$/)
    await expect(outline.getByRole('heading', { level: 2 })).toHaveCount(doc.tags.length)
    expect(chunks.held()).toBeGreaterThan(0)

    await outline.getByRole('link', { name: /Highest OS version Apple offers a device model/ }).click()
    await expect(page).toHaveURL(/#tag\/device-os-versions\/GET\/deviceosversion\/\{deviceModel\}$/)
    await chunks.release()
    await referenceLoaded(page)
    await expect(section(page, 'tag/device-os-versions/GET/deviceosversion/{deviceModel}')).toBeInViewport()
  })

  for (const anchor of ['tag/social-platform', 'tag/ip-checker/POST/ipcheck', 'tag/tool-server/POST/mcp']) {
    test(`a deep link to #${anchor} lands on its section`, async ({ page }) => {
      await page.goto(`/api/docs#${anchor}`)
      await referenceLoaded(page)
      await expect(section(page, anchor)).toBeInViewport()
    })
  }

  test('renders real examples and logs no warning or error', async ({ page }) => {
    const messages: string[] = []
    page.on('console', (m) => {
      // The favicon is not this page's (it 404s until the app ships one).
      if ((m.type() === 'warning' || m.type() === 'error') && !m.location().url.endsWith('/favicon.ico')) messages.push(`${m.type()}: ${m.text()}`)
    })
    page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`))
    await page.goto('/api/docs#tag/ip-checker/GET/ipcheck')
    await referenceLoaded(page)
    // The recorded ip-api.com answer for 24.48.0.1, through our mapping.
    await expect(page.getByText('"Le Groupe Videotron Ltee"').first()).toBeVisible()
    await page.waitForLoadState('networkidle')
    expect(messages).toEqual([])
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`axe: no serious or critical violations (${colorScheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme })
      await page.goto('/')
      expect(await seriousViolations(page), 'landing page').toEqual([])

      const chunks = await holdLazyChunks(page, '/api/docs')
      await page.goto('/api/docs')
      await expect(page.getByRole('navigation', { name: 'Operations' })).toBeVisible()
      expect(await seriousViolations(page), 'outline').toEqual([])
      await chunks.release()
      await referenceLoaded(page)
      await expect(page.locator(`.${colorScheme}-mode`).first()).toBeAttached()
      expect(await seriousViolations(page), 'reference').toEqual([])
    })
  }
})

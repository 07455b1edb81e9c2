import { chromium, type Browser } from '@playwright/test'
import { startApp } from '../../test-support/app'
import type { BenchRow, Scenario } from '../lib'

// The API reference page in Chromium, cold cache each time: first contentful paint, script bytes
// in the initial HTML and in total, and when the interactive reference (Scalar, loaded after the
// first paint) has replaced the server-rendered outline. Baseline: the landing page of the same
// app and server, the cheapest page it serves (same layout, styles and framework script, no
// Scalar), measured in the same run. The eager page this replaces waited for Scalar before its
// first paint; "reference ready" below is roughly where that page painted.

const RUNS = Number(process.env.BENCH_PAGE_RUNS ?? 5)
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

interface PageLoad {
  fcpMs: number
  initialJsBytes: number
  totalJsBytes: number
  readyMs?: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function loadOnce(browser: Browser, url: string, waitForReference: boolean): Promise<PageLoad> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true })
  const scripts = new Map<string, string>()
  const bytes = new Map<string, number>()
  cdp.on('Network.responseReceived', (e) => e.type === 'Script' && scripts.set(e.requestId, new URL(e.response.url).pathname))
  cdp.on('Network.loadingFinished', (e) => bytes.set(e.requestId, e.encodedDataLength))
  const response = await page.goto(url, { waitUntil: 'load' })
  const html = (await response?.text()) ?? ''
  let readyMs: number | undefined
  if (waitForReference) {
    await page.waitForFunction(() => !document.querySelector('nav[aria-label="Operations"]') && document.querySelector('.scalar-app'), null, {
      polling: 'raf',
      timeout: 120_000,
    })
    readyMs = await page.evaluate(() => performance.now())
  }
  await page.waitForLoadState('networkidle')
  const fcpMs = await page.evaluate(
    () =>
      new Promise<number>((resolve) => new PerformanceObserver((list) => resolve(list.getEntries()[0].startTime)).observe({ type: 'paint', buffered: true })),
  )
  let initialJsBytes = 0
  let totalJsBytes = 0
  for (const [id, path] of scripts) {
    const size = bytes.get(id) ?? 0
    totalJsBytes += size
    if (html.includes(path)) initialJsBytes += size
  }
  await context.close()
  return { fcpMs, initialJsBytes, totalJsBytes, readyMs }
}

async function measure(browser: Browser, url: string, waitForReference: boolean) {
  await loadOnce(browser, url, waitForReference) // warm-up: the server's first render of the page
  const runs: PageLoad[] = []
  for (let i = 0; i < RUNS; i++) runs.push(await loadOnce(browser, url, waitForReference))
  return {
    fcpMs: median(runs.map((r) => r.fcpMs)),
    initialKb: median(runs.map((r) => r.initialJsBytes)) / 1024,
    totalKb: median(runs.map((r) => r.totalJsBytes)) / 1024,
    readyMs: waitForReference ? median(runs.map((r) => r.readyMs ?? 0)) : undefined,
  }
}

async function run(): Promise<BenchRow[]> {
  const app = await startApp({ RATE_LIMIT_DISABLED: 'true' })
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  try {
    const landing = await measure(browser, `${app.url}/`, false)
    const docs = await measure(browser, `${app.url}/api/docs`, true)
    const group = '/api/docs vs landing page /'
    const baselineName = 'landing page'
    return [
      { group, name: 'first contentful paint', value: docs.fcpMs, unit: 'ms', baseline: landing.fcpMs, baselineName, note: `median of ${RUNS}, cold cache` },
      { group, name: 'JS in the initial HTML', value: docs.initialKb, unit: 'KB', baseline: landing.initialKb, baselineName, note: 'transferred (compressed)' },
      {
        group,
        name: 'JS transferred in total',
        value: docs.totalKb,
        unit: 'KB',
        baseline: landing.totalKb,
        baselineName,
        note: 'Scalar included, loaded after first paint',
      },
      {
        group: '/api/docs: interactive reference ready vs first paint',
        name: 'time',
        value: docs.readyMs ?? 0,
        unit: 'ms',
        baseline: docs.fcpMs,
        baselineName: 'outline painted',
        note: 'Scalar rendered and the outline replaced',
      },
    ]
  } finally {
    await browser.close()
    await app.stop()
  }
}

export default { name: 'reference-page', run } satisfies Scenario

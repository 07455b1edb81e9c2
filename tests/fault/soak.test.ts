import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startApp, type RunningApp } from '../../test-support/app'
import { startFakeDoh } from '../../test-support/fake-doh'
import { fixtureJson, sendJson, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { report, rssMb } from '../../test-support/fault'
import { runLoad, stats } from '../../test-support/load'

// Ninety seconds of mixed load (cheap operations, upstream-backed lookups, batches, errors, the
// tool server). Every 5 s the server is asked for a full garbage collection over its inspector
// protocol and its RSS and live heap are read: memory the process merely has not collected yet is
// not a leak. Over the last 30 s the resident set may grow by at most RSS_GROWTH_BOUND_MB. The
// embedded database is in a directory on disk, as `npm start` keeps it: in memory (`memory://`),
// every request-log row would be resident set too, and the WASM heap grows in steps of tens of MB.

const DURATION_MS = 90_000
/** The window growth is measured over: the last 30 s, after a minute of warm-up (tiering, allocator arenas). */
const WINDOW_MS = 30_000
const SAMPLE_EVERY_MS = 5000
const RSS_GROWTH_BOUND_MB = 40

/** A Chrome DevTools Protocol session on the server's inspector, to run a full GC before sampling. */
async function inspector(logs: () => string) {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(logs())![1]
  const socket = new WebSocket(url)
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let id = 0
  const send = (method: string) =>
    new Promise<Record<string, number>>((resolve) => {
      const mine = ++id
      const onMessage = (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data))
        if (message.id !== mine) return
        socket.off('message', onMessage)
        resolve(message.result)
      }
      socket.on('message', onMessage)
      socket.send(JSON.stringify({ id: mine, method }))
    })
  return {
    async collect(): Promise<number> {
      await send('HeapProfiler.collectGarbage')
      return (await send('Runtime.getHeapUsage')).usedSize / (1024 * 1024)
    },
    close: () => socket.close(),
  }
}
const sample = fixtureJson<Record<string, unknown>>('ip-api/json-all-fields-24.48.0.1.json')

let app: RunningApp
let upstream: FakeUpstream
let doh: Awaited<ReturnType<typeof startFakeDoh>>
const pgliteDir = mkdtempSync(join(tmpdir(), 'soak-pglite-'))
beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => {
    if (req.path === '/batch')
      return sendJson(
        res,
        200,
        (JSON.parse(req.body.toString()) as string[]).map((ip) => ({ ...sample, query: ip })),
        { 'X-Rl': '14', 'X-Ttl': '60' },
      )
    sendJson(res, 200, { ...sample, query: decodeURIComponent(req.path.replace(/^\/json\//, '')) }, { 'X-Rl': '40', 'X-Ttl': '50' })
  })
  doh = await startFakeDoh({ records: {} })
  app = await startApp({
    IP_API_URL: upstream.url,
    DOH_URL: doh.url,
    RATE_LIMIT_MAX: '100000000',
    NODE_OPTIONS: '--inspect=127.0.0.1:0',
    PGLITE_DIR: pgliteDir,
  })
})
afterAll(async () => {
  await app.stop()
  await upstream.close()
  await doh.close()
  rmSync(pgliteDir, { recursive: true, force: true })
})

const MIX: Array<(i: number, url: string) => Promise<Response>> = [
  (_, url) => fetch(`${url}/api/generate/guid?count=5`),
  (_, url) => fetch(`${url}/api/health`),
  (_, url) => fetch(`${url}/api/policies`),
  // A few addresses, cached: the free ip-api tier allows 45 lookups a minute, and the service keeps to it.
  (i, url) => fetch(`${url}/api/ipcheck?ip=24.48.0.${i % 16}`),
  (i, url) =>
    fetch(`${url}/api/ipcheck`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ips: [`24.49.0.${i % 8}`, '24.49.1.1'] }),
    }),
  (i, url) => fetch(`${url}/api/directory/convertid/${i % 2 ? 'S-1-12-1-1' : 'not-an-id'}`),
  (i, url) => fetch(`${url}/api/no/such/path/${i}`),
  (i, url) =>
    fetch(`${url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
    }),
]

describe('soak', () => {
  it('serves 90 s of mixed load without errors or a growing resident set', async () => {
    const rss: number[] = []
    const heap: number[] = []
    const gc = await inspector(app.logs)
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        heap.push(await gc.collect())
        rss.push(await rssMb(app.pid))
        await sleep(SAMPLE_EVERY_MS)
      }
    })()
    const load = stats(await runLoad((i) => MIX[i % MIX.length](i, app.url), { connections: 8, durationMs: DURATION_MS }))
    const failing = new Map<string, number>()
    for (const s of load.samples)
      if (s.error || s.status >= 500) failing.set(`${s.status}${s.error ? ` ${s.error.slice(0, 60)}` : ''}`, (failing.get(`${s.status}`) ?? 0) + 1)
    sampling = false
    await sampler
    gc.close()
    const half = Math.floor(rss.length / 2)
    const last = -(WINDOW_MS / SAMPLE_EVERY_MS + 1)
    const growth = rss[rss.length - 1] - Math.min(...rss.slice(last))
    const heapGrowth = heap[heap.length - 1] - Math.min(...heap.slice(last))
    report('soak', {
      requests: load.answered,
      failures: load.failures,
      p50Ms: Math.round(load.p50),
      p99Ms: Math.round(load.p99),
      rssStartMb: Math.round(rss[0]),
      rssMidMb: Math.round(rss[half]),
      rssEndMb: Math.round(rss[rss.length - 1]),
      rssEvery5s: rss.map(Math.round),
      heapAfterGcEvery5s: heap.map(Math.round),
      heapGrowthLast30sMb: Math.round(heapGrowth * 10) / 10,
      growthLast30sMb: Math.round(growth * 10) / 10,
      failing: Object.fromEntries(failing),
    })
    expect(load.failures).toBe(0)
    expect(load.answered).toBeGreaterThan(500)
    expect(growth).toBeLessThan(RSS_GROWTH_BOUND_MB)
  })
})

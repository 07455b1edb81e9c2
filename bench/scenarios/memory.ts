import { setTimeout as sleep } from 'node:timers/promises'
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { freePort, startApp } from '../../test-support/app'
import type { BenchRow, Scenario } from '../lib'

// Resident memory of the server on the embedded defaults (PGlite in a fresh directory, seeded with
// its first-start demo rows; in-memory rate limits; no secrets) after BENCH_MEMORY_SECONDS (60) of
// mixed load: pages, the REST API, MCP, the query application (rows and dashboard, as the local
// operator), so the request log is written all along. Baseline, in the same run and under the same
// load shape: a minimal Next.js app (one route handler) built into a temporary directory with this
// repository's next (in .data/, removed afterwards), served by `next start`. RSS is the sum over the server's process tree, read
// from /proc after the load. Target: ratio ≤ 1.4.

const SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60)
const CONNECTIONS = 8
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const NEXT_BIN = path.join(ROOT, 'node_modules/next/dist/bin/next')

/** RSS in bytes of `pid` and its descendants (Linux /proc). */
function treeRss(pid: number): number {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {}
  }
  let total = 0
  const stack = [pid]
  while (stack.length) {
    const p = stack.pop()!
    try {
      total += Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024
    } catch {}
    stack.push(...(children.get(p) ?? []))
  }
  return total
}

/** The smallest Next.js 16 app: one route handler, built with this repository's next. */
async function startMinimalNext(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  // Inside this repository (ignored by git), so it resolves this repository's next: Turbopack does
  // not follow a node_modules symlink out of its root.
  mkdirSync(path.join(ROOT, '.data'), { recursive: true })
  const dir = mkdtempSync(path.join(ROOT, '.data/bench-minimal-next-'))
  mkdirSync(path.join(dir, 'app/api/hello'), { recursive: true })
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'minimal-next', private: true, type: 'module' }))
  writeFileSync(path.join(dir, 'next.config.mjs'), `export default { turbopack: { root: ${JSON.stringify(ROOT)} } }\n`)
  writeFileSync(
    path.join(dir, 'app/api/hello/route.js'),
    "export const dynamic = 'force-dynamic'\nexport function GET() {\n  return Response.json({ hello: 'world', time: Date.now() })\n}\n",
  )
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' as const }
  const build = spawnSync(process.execPath, [NEXT_BIN, 'build'], { cwd: dir, env, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`minimal app build failed:\n${build.stdout}\n${build.stderr}`)
  const port = await freePort()
  const child = spawn(process.execPath, [NEXT_BIN, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: dir, env, stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      await (await fetch(`${url}/api/hello`)).arrayBuffer()
      break
    } catch {
      if (i > 300) throw new Error('minimal app did not start')
      await sleep(100)
    }
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

type Req = { method?: string; path: string; headers?: Record<string, string>; body?: string }

async function loadFor(url: string, requests: Req[]): Promise<{ requests: number; non2xx: number }> {
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: requests.map((q) => ({ method: (q.method ?? 'GET') as 'GET' | 'POST', path: q.path, headers: q.headers, body: q.body })),
  })
  return { requests: r.requests.total, non2xx: r.non2xx }
}

const scenario: Scenario = {
  name: 'memory',
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = []
    const minimal = await startMinimalNext()
    let baseline: number
    try {
      const idle = treeRss(minimal.pid)
      const done = await loadFor(minimal.url, [{ path: '/api/hello' }])
      baseline = treeRss(minimal.pid)
      console.log(`minimal Next.js app: ${(idle / 2 ** 20).toFixed(0)} MB idle, ${(baseline / 2 ** 20).toFixed(0)} MB after ${done.requests} requests`)
    } finally {
      await minimal.stop()
    }

    const dir = mkdtempSync(path.join(tmpdir(), 'bench-memory-pglite-'))
    // `npm start` on a fresh clone: PGlite in a new directory with its demo rows. Rate limits lifted
    // so every request does its work instead of a 429.
    const app = await startApp({ NODE_ENV: 'production', PGLITE_DIR: path.join(dir, 'pglite'), QUERY_DEMO_ROWS: '400', RATE_LIMIT_MAX: '100000000' })
    try {
      const idle = treeRss(app.pid)
      const today = new Date().toISOString().slice(0, 10)
      const cookie = app.operatorCookie
      const json = { 'content-type': 'application/json' }
      const mix: Req[] = [
        { path: '/' },
        { path: '/api/health' },
        { path: '/api/generate/guid' },
        { path: '/api/generate/timestamp/ticks' },
        { path: '/api/openapi.json' },
        {
          method: 'POST',
          path: '/api/mcp',
          headers: { ...json, accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        },
        { path: '/query?dataset=requests', headers: { cookie } },
        { path: '/query/dashboard?dataset=dns&range=24h', headers: { cookie } },
        {
          method: 'POST',
          path: '/query/api/query',
          headers: { ...json, cookie, origin: app.url },
          body: JSON.stringify({ dataset: 'http', dateFrom: today, dateTo: today, filter: "action = 'block'" }),
        },
      ]
      const done = await loadFor(app.url, mix)
      const loaded = treeRss(app.pid)
      console.log(
        `this server (embedded defaults): ${(idle / 2 ** 20).toFixed(0)} MB idle, ${(loaded / 2 ** 20).toFixed(0)} MB after ${done.requests} requests (${done.non2xx} not 2xx)`,
      )
      rows.push(
        {
          group: 'memory',
          name: `RSS after ${SECONDS} s of mixed load (embedded defaults)`,
          value: loaded / 2 ** 20,
          unit: 'MB',
          baseline: baseline / 2 ** 20,
          baselineName: 'minimal Next.js app, one route handler',
          note: 'target ratio ≤ 1.4',
        },
        { group: 'memory', name: 'RSS idle after start (embedded defaults)', value: idle / 2 ** 20, unit: 'MB' },
      )
    } finally {
      await app.stop()
      rmSync(dir, { recursive: true, force: true })
    }
    return rows
  },
}

export default scenario

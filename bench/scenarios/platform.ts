import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import IORedis from 'ioredis'
import { startApp } from '../../test-support/app'
import { load, type BenchRow, type Scenario } from '../lib'

// Platform overhead: the app's cheapest operations against a bare node:http server returning the
// same JSON, and what each rate-limit store costs per request.

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/2'
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)
const CONNECTIONS = 10

async function bareServer() {
  const server = createServer((req, res) => {
    const body =
      req.url === '/api/health'
        ? {
            status: 'ok',
            version: '1.1.0',
            uptimeSeconds: 1,
            time: new Date().toISOString(),
            checks: { rateLimitStore: { status: 'ok', required: false, latencyMs: 0, detail: 'in-memory (single process)' } },
          }
        : { version: 4, format: 'D', count: 1, guids: [randomUUID()] }
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': randomUUID() })
    res.end(JSON.stringify(body))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) }
}

async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  const bare = await bareServer()
  // A quota no benchmark reaches, so the limiter runs on every request but never rejects.
  const unlimited = { RATE_LIMIT_MAX: '1000000000' }
  const redis = new IORedis(REDIS_URL)
  await redis.flushdb()
  redis.disconnect()
  const apps = {
    none: await startApp({ RATE_LIMIT_DISABLED: 'true' }),
    memory: await startApp(unlimited),
    redis: await startApp({ ...unlimited, REDIS_URL }),
  }
  try {
    for (const path of ['/api/generate/guid', '/api/health']) {
      const baseline = await load(bare.url + path, { connections: CONNECTIONS, durationS: DURATION_S })
      const app = await load(apps.memory.url + path, { connections: CONNECTIONS, durationS: DURATION_S })
      const group = `${path} vs bare node:http`
      rows.push(
        { group, name: 'requests/s', value: app.requestsPerSec, unit: 'req/s', baseline: baseline.requestsPerSec, baselineName: 'bare' },
        { group, name: 'p50 latency', value: app.p50Ms, unit: 'ms', baseline: baseline.p50Ms, baselineName: 'bare' },
        { group, name: 'p99 latency', value: app.p99Ms, unit: 'ms', baseline: baseline.p99Ms, baselineName: 'bare' },
      )
    }
    const none = await load(apps.none.url + '/api/generate/guid', { connections: CONNECTIONS, durationS: DURATION_S })
    for (const store of ['memory', 'redis'] as const) {
      const r = await load(apps[store].url + '/api/generate/guid', { connections: CONNECTIONS, durationS: DURATION_S })
      const group = `limiter cost: ${store} store vs none`
      rows.push(
        { group, name: 'requests/s', value: r.requestsPerSec, unit: 'req/s', baseline: none.requestsPerSec, baselineName: 'no limiter' },
        { group, name: 'p50 latency', value: r.p50Ms, unit: 'ms', baseline: none.p50Ms, baselineName: 'no limiter' },
        {
          group,
          name: 'p99 latency',
          value: r.p99Ms,
          unit: 'ms',
          baseline: none.p99Ms,
          baselineName: 'no limiter',
          note: r.non2xx ? `${r.non2xx} non-2xx` : undefined,
        },
      )
    }
  } finally {
    await Promise.all([bare.close(), ...Object.values(apps).map((a) => a.stop())])
  }
  return rows
}

export default { name: 'platform', run } satisfies Scenario

import { startApp } from '../../test-support/app'
import { startTcpProxy } from '../../test-support/tcp-proxy'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'
import { load, type BenchRow, type Scenario } from '../lib'

// Throughput while a dependency hangs, as a ratio of the same server's throughput while it answers
// (same run, same load): the rate-limit store (Redis) and the request log's database (Postgres),
// each behind a loopback proxy that stops forwarding. The goal for a hung store is a ratio ≥ 0.8.

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/2'
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_bench'
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)
const CONNECTIONS = 10
const PATH = '/api/generate/guid'

async function throughputWhileHung(name: string, url: string, env: (proxiedUrl: string) => Record<string, string>): Promise<BenchRow[]> {
  const target = new URL(url)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) })
  target.hostname = '127.0.0.1'
  target.port = String(proxy.port)
  // A quota no benchmark reaches: the limiter runs on every request but never rejects.
  const app = await startApp({ RATE_LIMIT_MAX: '1000000000', ...env(target.toString()) })
  try {
    const healthy = await load(app.url + PATH, { connections: CONNECTIONS, durationS: DURATION_S })
    proxy.hang()
    const hung = await load(app.url + PATH, { connections: CONNECTIONS, durationS: DURATION_S })
    proxy.restore()
    const group = `${PATH} while ${name} hangs vs answering`
    return [
      {
        group,
        name: 'requests/s',
        value: hung.requestsPerSec,
        unit: 'req/s',
        baseline: healthy.requestsPerSec,
        baselineName: `${name} answering`,
        note: 'goal: ratio ≥ 0.8',
      },
      { group, name: 'p50 latency', value: hung.p50Ms, unit: 'ms', baseline: healthy.p50Ms, baselineName: `${name} answering` },
      {
        group,
        name: 'p99 latency',
        value: hung.p99Ms,
        unit: 'ms',
        baseline: healthy.p99Ms,
        baselineName: `${name} answering`,
        note: hung.non2xx ? `${hung.non2xx} non-2xx` : undefined,
      },
    ]
  } finally {
    await app.stop()
    await proxy.close()
  }
}

async function run(): Promise<BenchRow[]> {
  await ensureDatabase(DATABASE_URL)
  return [
    ...(await throughputWhileHung('Redis', REDIS_URL, (url) => ({ REDIS_URL: url }))),
    ...(await throughputWhileHung('Postgres', DATABASE_URL, (url) => ({ DATABASE_URL: url, RATE_LIMIT_DISABLED: 'true' }))),
  ]
}

export default { name: 'faults', run } satisfies Scenario

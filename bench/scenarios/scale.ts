import { setTimeout as sleep } from 'node:timers/promises'
import IORedis from 'ioredis'
import { startApp } from '../../test-support/app'
import { clientAddresses, clientAt, clusterEnv, get, SERVER_NAMES, startCluster, type Answer } from '../../test-support/scale'
import { percentile } from '../../test-support/load'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'
import { load, type BenchRow, type Scenario } from '../lib'

// Three instances of the build behind HAProxy (deploy/haproxy.cfg, as the scale test stage runs
// them) against one instance, in the same run:
// - gate throughput (GET /api/generate/guid: request id, client address, the Redis-counted limit
//   that never rejects here, the route) through HAProxy to three instances, against one instance
//   straight, the same autocannon load;
// - a rolling restart under closed-loop load from 16 client addresses (each instance in turn:
//   SIGTERM, out of HAProxy, exit, start again, UP again): failed requests (transport errors and 5xx)
//   and the longest time between two answers, against the same load's steady stretch before it.

const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/2'
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_bench'
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)
const CONNECTIONS = 30
const PATH = '/api/generate/guid'

const failuresOf = (answers: Answer[]) => answers.filter((a) => a.status === 0 || a.status >= 500).length
function longestGapMs(answers: Answer[]): number {
  const times = answers.map((a) => a.at).sort((a, b) => a - b)
  return times.length < 2 ? 0 : Math.max(...times.slice(1).map((t, i) => t - times[i]))
}

async function run(): Promise<BenchRow[]> {
  await ensureDatabase(DATABASE_URL)
  const redis = new IORedis(REDIS_URL)
  await redis.flushdb()
  redis.disconnect()
  // A quota no benchmark reaches: the limiter counts every request in Redis but never rejects.
  const env = { ...clusterEnv(DATABASE_URL, REDIS_URL), RATE_LIMIT_MAX: '1000000000' }
  const rows: BenchRow[] = []

  const single = await startApp(env)
  let direct
  try {
    direct = await load(single.url + PATH, { connections: CONNECTIONS, durationS: DURATION_S })
  } finally {
    await single.stop()
  }

  const cluster = await startCluster(env, (i) => ({ REQUEST_LOG_INSTANCE: `bench-scale-${i + 1}` }))
  try {
    const balanced = await load(cluster.balancer.url + PATH, { connections: CONNECTIONS, durationS: DURATION_S })
    const group = `${PATH} through HAProxy to three instances vs one instance straight`
    rows.push(
      { group, name: 'requests/s', value: balanced.requestsPerSec, unit: 'req/s', baseline: direct.requestsPerSec, baselineName: 'one instance' },
      { group, name: 'p50 latency', value: balanced.p50Ms, unit: 'ms', baseline: direct.p50Ms, baselineName: 'one instance' },
      {
        group,
        name: 'p99 latency',
        value: balanced.p99Ms,
        unit: 'ms',
        baseline: direct.p99Ms,
        baselineName: 'one instance',
        note: balanced.non2xx + direct.non2xx ? `${balanced.non2xx} / ${direct.non2xx} non-2xx` : undefined,
      },
    )

    // Closed-loop load from 16 addresses; a steady stretch first, then each instance restarted in turn.
    const agents = clientAddresses(16).map((address) => clientAt(address, 1))
    const answers: Answer[] = []
    let loading = true
    const loaders = agents.map(async (agent) => {
      while (loading) answers.push(await get(agent, cluster.balancer.url + PATH))
    })
    await sleep(DURATION_S * 2000)
    const restartFrom = Date.now()
    for (const i of SERVER_NAMES.keys()) await cluster.restart(i)
    await sleep(1000)
    loading = false
    await Promise.all(loaders)
    await Promise.all(agents.map((a) => a.close()))
    const steady = answers.filter((a) => a.at < restartFrom)
    const rolling = answers.filter((a) => a.at >= restartFrom)
    const restartGroup = 'rolling restart of three instances behind HAProxy (16 clients) vs the steady stretch before it'
    rows.push(
      {
        group: restartGroup,
        name: 'failed requests',
        value: failuresOf(rolling),
        unit: 'req',
        baseline: failuresOf(steady),
        baselineName: 'steady',
        note: 'goal: 0',
      },
      {
        group: restartGroup,
        name: 'longest gap between answers',
        value: longestGapMs(rolling),
        unit: 'ms',
        baseline: longestGapMs(steady),
        baselineName: 'steady',
        note: `${rolling.length} requests in ${Math.round((Date.now() - restartFrom) / 1000)} s`,
      },
      {
        group: restartGroup,
        name: 'p99 latency',
        value: percentile(
          rolling.map((a) => a.ms),
          99,
        ),
        unit: 'ms',
        baseline: percentile(
          steady.map((a) => a.ms),
          99,
        ),
        baselineName: 'steady',
      },
    )
  } finally {
    await cluster.stop()
  }
  return rows
}

export default { name: 'scale', run } satisfies Scenario

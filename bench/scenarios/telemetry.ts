import { startApp } from '../../test-support/app'
import { startOtlpReceiver } from '../../test-support/otlp-receiver'
import { load, type BenchRow, type LoadResult, type Scenario } from '../lib'

// What OpenTelemetry costs the gate: the cheapest operation (the gate, the envelope, a GUID) on an
// app exporting every trace (always-on sampling, OTLP/HTTP protobuf to a loopback receiver that only
// counts) against the same app with telemetry off, in the same run. Rounds alternate off and on so
// that both see the same load on a shared machine. Goal: on/off throughput at least 0.9.

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)
const ROUNDS = 2
const CONNECTIONS = 10
const PATH = '/api/generate/guid'

const mean = (list: LoadResult[], key: keyof LoadResult) => list.reduce((sum, r) => sum + r[key], 0) / list.length

async function run(): Promise<BenchRow[]> {
  const receiver = await startOtlpReceiver({ keep: false })
  // A quota no benchmark reaches, so the limiter runs on every request but never rejects.
  const common = { RATE_LIMIT_MAX: '1000000000' }
  const off = await startApp(common)
  const on = await startApp({
    ...common,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'always_on',
    OTEL_METRIC_EXPORT_INTERVAL: '5000',
  })
  const results: { off: LoadResult[]; on: LoadResult[] } = { off: [], on: [] }
  try {
    for (let i = 0; i < ROUNDS; i++) {
      results.off.push(await load(off.url + PATH, { connections: CONNECTIONS, durationS: DURATION_S }))
      results.on.push(await load(on.url + PATH, { connections: CONNECTIONS, durationS: DURATION_S }))
    }
  } finally {
    await Promise.all([off.stop(), on.stop()])
    await receiver.close()
  }
  const group = `${PATH}: OpenTelemetry exporting vs off`
  const errors = results.on.reduce((n, r) => n + r.non2xx, 0)
  return [
    { group, name: 'requests/s', value: mean(results.on, 'requestsPerSec'), unit: 'req/s', baseline: mean(results.off, 'requestsPerSec'), baselineName: 'off' },
    { group, name: 'p50 latency', value: mean(results.on, 'p50Ms'), unit: 'ms', baseline: mean(results.off, 'p50Ms'), baselineName: 'off' },
    {
      group,
      name: 'p99 latency',
      value: mean(results.on, 'p99Ms'),
      unit: 'ms',
      baseline: mean(results.off, 'p99Ms'),
      baselineName: 'off',
      note: `${receiver.exports()} OTLP exports received${errors ? `; ${errors} non-2xx` : ''}`,
    },
  ]
}

export default { name: 'telemetry', run } satisfies Scenario

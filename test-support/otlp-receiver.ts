import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

// A loopback OTLP/HTTP receiver speaking the JSON encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json):
// it keeps every span and metric data point it is sent, flattened for assertions. Anything else
// (protobuf) is refused with 415, so a test that forgot the protocol fails loudly.

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean }
type KeyValue = { key: string; value: AnyValue }

export type Attributes = Record<string, string | number | boolean | undefined>

export interface ReceivedSpan {
  name: string
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number
  traceId: string
  spanId: string
  parentSpanId?: string
  attributes: Attributes
  resource: Attributes
  status?: { code?: number }
}

export interface ReceivedPoint {
  metric: string
  unit: string
  type: 'histogram' | 'sum' | 'gauge'
  attributes: Attributes
  /** The histogram's count, or the sum's or gauge's value. */
  value: number
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string
  spans: ReceivedSpan[]
  points: ReceivedPoint[]
  /** Paths of requests refused (not JSON). */
  refused: string[]
  /** Export requests received (every one, kept or not). */
  exports: () => number
  close(): Promise<void>
}

const valueOf = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue))
const attributesOf = (list: KeyValue[] | undefined): Attributes => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]))

interface DataPoint {
  attributes?: KeyValue[]
  count?: number | string
  asDouble?: number
  asInt?: number | string
}
interface Metric {
  name: string
  unit?: string
  histogram?: { dataPoints: DataPoint[] }
  sum?: { dataPoints: DataPoint[] }
  gauge?: { dataPoints: DataPoint[] }
}

/** `keep: false` (benchmarks): every export is accepted, in either encoding, and only counted. */
export async function startOtlpReceiver({ keep = true } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const points: ReceivedPoint[] = []
  const refused: string[] = []
  let exports = 0
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      exports++
      if (!keep) {
        res.writeHead(200).end()
        return
      }
      if (!req.headers['content-type']?.startsWith('application/json')) {
        refused.push(req.url ?? '')
        res.writeHead(415).end()
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      if (req.url === '/v1/traces')
        for (const rs of body.resourceSpans ?? []) {
          const resource = attributesOf(rs.resource?.attributes)
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                name: s.name,
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                attributes: attributesOf(s.attributes),
                resource,
                status: s.status,
              })
        }
      if (req.url === '/v1/metrics')
        for (const rm of body.resourceMetrics ?? [])
          for (const sm of rm.scopeMetrics ?? [])
            for (const m of (sm.metrics ?? []) as Metric[]) {
              const type = m.histogram ? 'histogram' : m.sum ? 'sum' : 'gauge'
              for (const p of m[type]?.dataPoints ?? [])
                points.push({
                  metric: m.name,
                  unit: m.unit ?? '',
                  type,
                  attributes: attributesOf(p.attributes),
                  value: Number(type === 'histogram' ? p.count : (p.asDouble ?? p.asInt)),
                })
            }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    points,
    refused,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

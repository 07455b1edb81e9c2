import 'server-only'
import { AsyncLocalStorage } from 'node:async_hooks'
import { metrics, SpanKind, SpanStatusCode, trace, type Attributes, type Counter, type Histogram, type Span } from '@opentelemetry/api'
import { config, telemetryEnabled } from '@/lib/config'
import { AppError } from '@/lib/errors'
import type { MeasuredOperation } from '@/lib/log'
import { processSlot } from '@/lib/process-slot'

// What the application's code tells OpenTelemetry (the SDK itself: lib/telemetry/sdk.ts). Only the
// API package is imported here, never the SDK; with telemetry off (no OTLP endpoint) every helper
// returns after one boolean check: no span, no clock read, no attribute built.

export { SpanKind }

export const telemetryOn = telemetryEnabled(config)

/** The instrumentation scope of every span and instrument of the service. */
export const SCOPE = 'utility-api'
/** The request id (X-Request-Id) on every span of a request (added by the SDK's span processor). */
export const REQUEST_ID_ATTRIBUTE = 'utility_api.request_id'

/** What the server span (lib/gate/server-span.ts) keeps of its request, for everything the request runs. */
export interface RequestTelemetry {
  requestId: string
  /** The route template, once the handler's envelope (or Next's own span) named it. */
  route?: string
}

// Kept in an AsyncLocalStorage of its own rather than on the OpenTelemetry context: Next starts the
// render pass after the proxy from a context extracted afresh from the request's `traceparent`,
// which drops every other context value. The storage is process-wide: the proxy, the route handlers
// and the instrumentation are separate bundles.
const requests = () => processSlot<AsyncLocalStorage<RequestTelemetry>>('telemetry-requests').getOrCreate(() => new AsyncLocalStorage())

/** The request being served, if any (telemetry on only). */
export const currentRequest = (): RequestTelemetry | undefined => (telemetryOn ? requests().getStore() : undefined)

/** Runs `fn` as part of `request`. */
export const runInRequest = <T>(request: RequestTelemetry, fn: () => T): T => requests().run(request, fn)

/** Names the route template of the request being served, for its server span and duration metric. */
export function noteRoute(route: string): void {
  const request = currentRequest()
  if (request) request.route = route
}

export const tracer = () => trace.getTracer(SCOPE)

/** The bucket boundaries the HTTP semantic conventions advise for durations in seconds. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

// The API has no stand-in meter provider: a meter taken before the SDK registered its provider stays
// a no-op for good. Instruments are therefore created on first use, which is after start-up.
const histograms = new Map<string, Histogram>()
export function recordDuration(name: string, description: string, seconds: number, attributes: Attributes): void {
  let histogram = histograms.get(name)
  if (!histogram) {
    histogram = metrics.getMeter(SCOPE).createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: DURATION_BUCKETS } })
    histograms.set(name, histogram)
  }
  histogram.record(seconds, attributes)
}

/** A low-cardinality name for a failure: the application's error code, else the error's name. */
export function errorType(error: unknown): string {
  if (error instanceof AppError) return error.code
  if (error instanceof Error) return error.name
  return '_OTHER'
}

/** Runs `fn` in a span of its own (a child of the active one) and records its duration; with telemetry off, just `fn`. */
export function measured<T>(op: MeasuredOperation<T>, fn: () => Promise<T>): Promise<T> {
  if (!telemetryOn) return fn()
  const started = performance.now()
  const kind = op.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL
  return tracer().startActiveSpan(op.name, { kind, attributes: op.attributes }, async (span: Span) => {
    const attributes: Attributes = { ...op.attributes }
    try {
      const result = await fn()
      Object.assign(attributes, op.outcome?.(result))
      return result
    } catch (error) {
      Object.assign(attributes, { 'error.type': errorType(error) }, op.failure?.(error))
      span.setStatus({ code: SpanStatusCode.ERROR })
      throw error
    } finally {
      span.setAttributes(attributes)
      span.end()
      const picked: Attributes = {}
      for (const key of op.metric.keys) if (attributes[key] !== undefined) picked[key] = attributes[key]
      recordDuration(op.metric.name, op.metric.description, (performance.now() - started) / 1000, picked)
    }
  })
}

let denials: Counter | undefined
/** A 429 from a rate limit, by the policy whose quota ran out. */
export function countRateLimitDenial(policy: string): void {
  if (!telemetryOn) return
  denials ??= metrics
    .getMeter(SCOPE)
    .createCounter('utility_api.rate_limit.denials', { unit: '{request}', description: 'Requests refused with 429 by a rate limit' })
  denials.add(1, { 'utility_api.rate_limit.policy': policy })
}

/** A gauge read at each metric export (the request log's lag); `read` answers undefined while there is nothing to report. */
export function observeGauge(name: string, unit: string, description: string, read: () => number | undefined): void {
  if (!telemetryOn) return
  metrics
    .getMeter(SCOPE)
    .createObservableGauge(name, { unit, description })
    .addCallback((result) => {
      const value = read()
      if (value !== undefined) result.observe(value)
    })
}

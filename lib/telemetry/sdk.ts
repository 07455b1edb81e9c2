import 'server-only'
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { config } from '@/lib/config'
import { currentRequest, REQUEST_ID_ATTRIBUTE, type RequestTelemetry } from '@/lib/telemetry/telemetry'

// The OpenTelemetry SDK, loaded at start-up (lib/startup.ts) only when telemetry is on (an OTLP endpoint
// is set): NodeSDK with the standard OTEL_* variables (service name, resource attributes, sampler,
// propagators, headers, batch delay, metric exporter and interval), which it reads itself. The
// configuration (lib/config.ts) only decides whether this module is loaded and which OTLP protocol
// the trace exporter speaks; the span pipeline is ours so that a processor can stamp each span with
// its request's id.

/** Adds the request id to every span started inside a request, and picks up Next's route template for pages. */
class RequestSpanProcessor implements SpanProcessor {
  private readonly requests = new WeakMap<Span, RequestTelemetry>()
  onStart(span: Span): void {
    const request = currentRequest()
    if (!request) return
    span.setAttribute(REQUEST_ID_ATTRIBUTE, request.requestId)
    if (!request.route) this.requests.set(span, request)
  }
  onEnd(span: ReadableSpan): void {
    const request = this.requests.get(span as Span)
    const route = span.attributes['http.route']
    if (request && !request.route && typeof route === 'string') request.route = route
  }
  forceFlush = () => Promise.resolve()
  shutdown = () => Promise.resolve()
}

async function traceExporter(): Promise<SpanExporter> {
  const protocol = config.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL
  // Each exporter reads its endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_*.
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter()
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter()
}

/** Starts the SDK; returns what flushes and stops it (the shutdown hook). */
export async function startTelemetry(): Promise<() => Promise<void>> {
  const { NodeSDK, resources } = await import('@opentelemetry/sdk-node')
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base')
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override this default.
    resource: resources.resourceFromAttributes({ 'service.name': 'utility-api' }),
    // The batch processor reads OTEL_BSP_* itself.
    spanProcessors: [new RequestSpanProcessor(), new BatchSpanProcessor(await traceExporter())],
  })
  sdk.start()
  return () => sdk.shutdown()
}

import 'server-only'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { REQUEST_ID_HEADER } from '@/lib/http/headers'
import { requestIdOf } from '@/lib/http/request-id'
import { recordDuration, REQUEST_ID_ATTRIBUTE, runInRequest, tracer, type RequestTelemetry } from '@/lib/telemetry/telemetry'

// The server span of each request and its duration metric, opened by server.mjs around Next's
// request handler (lib/startup.ts registers this function in a process slot when telemetry is on). Everything the
// request runs — the proxy, Next's own spans, the handlers' client, database and MCP spans — is a
// child of it. The route template comes from the handler's envelope (noteRoute) or, for a page,
// from Next's own span; the request id is decided here, before the proxy, so that every span of the
// request carries it (the proxy keeps a UUID it is given).

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE'])

export function serveTraced(req: IncomingMessage, res: ServerResponse, handle: () => unknown): void {
  const started = performance.now()
  const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER] as string | undefined)
  req.headers[REQUEST_ID_HEADER] = requestId
  const request: RequestTelemetry = { requestId }
  const method = KNOWN_METHODS.has(req.method ?? '') ? req.method! : '_OTHER'
  const path = (req.url ?? '/').split('?')[0] // the query string may hold a key (the local operator's link)
  const parent = propagation.extract(ROOT_CONTEXT, req.headers)
  const span = tracer().startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': method,
        'url.path': path,
        'url.scheme': 'http',
        'network.protocol.version': req.httpVersion,
        [REQUEST_ID_ATTRIBUTE]: requestId,
      },
    },
    parent,
  )
  res.once('close', () => {
    const status = res.statusCode
    const attributes = {
      'http.request.method': method,
      'http.response.status_code': status,
      ...(request.route ? { 'http.route': request.route } : {}),
      ...(status >= 500 ? { 'error.type': String(status) } : !res.writableFinished ? { 'error.type': 'aborted' } : {}),
    }
    span.setAttributes(attributes)
    if (request.route) span.updateName(`${method} ${request.route}`)
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    span.end()
    recordDuration('http.server.request.duration', 'Duration of HTTP server requests', (performance.now() - started) / 1000, attributes)
  })
  runInRequest(request, () => context.with(trace.setSpan(parent, span), handle))
}

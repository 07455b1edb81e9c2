import 'server-only'
import { randomUUID } from 'node:crypto'
import { CLIENT_IP_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import type { ErrorFormat } from '@/lib/http/errors'
import { recordAnswer } from '@/lib/http/request-log'
import { z } from 'zod'
import { AppError, describeZodError } from '@/lib/errors'
import { errorBody } from '@/lib/http/errors'
import { log } from '@/lib/log'
import { noteRoute } from '@/lib/telemetry/telemetry'

// The one envelope under every kind of handler — REST operations (route()), the query
// application's guarded routes (withAccess), Logpush ingest, cron and MCP: the request id (the
// proxy's, or a new one), anything thrown mapped to the handler's error shape, the id on the
// answer, and the request-log row for the API's own routes.

export const INTERNAL_ERROR_MESSAGE = 'Internal server error. Quote the request id when contacting support.'

/** Anything thrown → the answer in `format`; an unexpected error is logged with its stack and answered 500 without detail. */
export function errorResponse(error: unknown, format: ErrorFormat, requestId: string, route: string): Response {
  let appError: AppError
  if (error instanceof AppError) appError = error
  else if (error instanceof z.ZodError) appError = new AppError('invalid_input', describeZodError(error))
  else {
    log.error('unhandled error', {
      requestId,
      route,
      error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
    })
    appError = new AppError('internal', INTERNAL_ERROR_MESSAGE)
  }
  if (appError.status >= 500 && appError.code !== 'internal')
    log.warn('operation failed', { requestId, route, code: appError.code, message: appError.message, detail: appError.details?.detail })
  const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' }
  const retryAfter = appError.details?.retryAfterSeconds
  if (typeof retryAfter === 'number') headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfter)))
  return Response.json(errorBody(format, appError.code, appError.message, requestId), { status: appError.status, headers })
}

export interface EnvelopeContext {
  requestId: string
  clientIp: string
  /** MCP: the tools a request called, for its request-log row. */
  mcpTools: string[]
}

export interface EnvelopeOptions {
  /** The route template, for logs and the request log (`/api/ipcheck`, `/query/api/query`). */
  route: string
  errorFormat?: ErrorFormat
  /** Writes the request-log row (the /api routes; the query application's own routes are not logged). */
  record?: boolean
}

export async function envelope(request: Request, opts: EnvelopeOptions, run: (ctx: EnvelopeContext) => Promise<Response>): Promise<Response> {
  const startedAt = performance.now()
  noteRoute(opts.route)
  const ctx: EnvelopeContext = {
    requestId: request.headers.get(REQUEST_ID_HEADER) ?? randomUUID(),
    clientIp: request.headers.get(CLIENT_IP_HEADER) ?? 'unknown',
    mcpTools: [],
  }
  let response: Response
  try {
    response = await run(ctx)
  } catch (error) {
    response = errorResponse(error, opts.errorFormat ?? 'envelope', ctx.requestId, opts.route)
  }
  response.headers.set(REQUEST_ID_HEADER, ctx.requestId)
  if (opts.record)
    recordAnswer(request, {
      requestId: ctx.requestId,
      route: opts.route,
      status: response.status,
      clientIp: ctx.clientIp,
      startedAt,
      // One row per HTTP request; a batch calling several tools lists them comma-separated.
      ...(ctx.mcpTools.length ? { mcpTool: [...new Set(ctx.mcpTools)].join(',') } : {}),
    })
  return response
}

import 'server-only'
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { hasBody, readBody, readJsonBody } from '@/lib/http/body'
import { AppError, describeZodError, errorBody, type ErrorFormat } from '@/lib/http/errors'
import { INTERNAL_KEY_HEADER, internalKeyProblem } from '@/lib/http/internal-key'
import { bodyLimitOf, type Operation } from '@/lib/http/operation'
import { recordAnswer } from '@/lib/http/request-log'
import { log } from '@/lib/log'

// route(): our one handler wrapper. It parses inputs with the operation's schemas, builds the
// context, calls the domain, serialises the result and maps anything thrown to the operation's
// error shape. The proxy has already applied the rate limit and set the request id and client IP.

export const REQUEST_ID_HEADER = 'x-request-id'
export const INTERNAL_ERROR_MESSAGE = 'Internal server error. Quote the request id when contacting support.'
export const CLIENT_IP_HEADER = 'x-tc-client-ip'

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined

export interface RouteContext<Q, P, B> {
  query: Q
  params: P
  body: B
  request: Request
  requestId: string
  clientIp: string
}

type RouteParams = { params: Promise<Record<string, string | string[]>> }

/** Query string → object; a repeated key becomes an array and an empty value counts as absent. */
function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key).filter((v) => v !== '')
    if (all.length > 0) out[key] = all.length > 1 ? all : all[0]
  }
  return out
}

async function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: string): Promise<z.output<S>> {
  const parsed = await schema.safeParseAsync(value)
  if (!parsed.success) throw new AppError('invalid_input', describeZodError(parsed.error, where))
  return parsed.data
}

/** A bounded JSON body (lib/http/body.ts): 415, 413 or 400 before any parsing work. */
export const readJson = (req: Request) => readJsonBody(req)

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

export function route<
  Q extends z.ZodType<Record<string, unknown>> | undefined,
  P extends z.ZodType<Record<string, unknown>> | undefined,
  B extends z.ZodType | undefined,
>(
  op: Operation<Q, P, B>,
  handle: (ctx: RouteContext<Infer<Q>, Infer<P>, Infer<B>>) => unknown | Promise<unknown>,
) {
  const template = `/api${op.path}`
  const format = op.errorFormat ?? 'envelope'
  return async function handler(request: Request, routeParams?: RouteParams): Promise<Response> {
    const started = performance.now()
    const requestId = request.headers.get(REQUEST_ID_HEADER) ?? randomUUID()
    const clientIp = request.headers.get(CLIENT_IP_HEADER) ?? 'unknown'
    const url = new URL(request.url)
    let response: Response
    try {
      // The proxy checks the key too; this second check keeps the operation safe if a matcher changes.
      if (op.internal) {
        const problem = internalKeyProblem(request.headers.get(INTERNAL_KEY_HEADER))
        if (problem) throw new AppError('forbidden', problem)
      }
      const query = (op.query ? await parseOrThrow(op.query, queryObject(url), '') : undefined) as Infer<Q>
      const params = (op.params ? await parseOrThrow(op.params, await routeParams?.params, '') : undefined) as Infer<P>
      const limit = bodyLimitOf(op)
      // An operation without a body still refuses an oversized one rather than buffer it unread.
      if (!op.body && hasBody(request)) await readBody(request, limit)
      const body = (op.body ? await parseOrThrow(op.body, await readJsonBody(request, limit), 'body.') : undefined) as Infer<B>
      const result = await handle({ query, params, body, request, requestId, clientIp })
      if (result instanceof Response) {
        response = result
        response.headers.set(REQUEST_ID_HEADER, requestId)
      } else {
        const headers: Record<string, string> = { [REQUEST_ID_HEADER]: requestId }
        headers['cache-control'] = op.cacheControl ?? 'no-store'
        response = Response.json(result, { status: op.success.status ?? 200, headers })
      }
    } catch (error) {
      response = errorResponse(error, format, requestId, template)
    }
    recordAnswer(request, { requestId, route: template, status: response.status, clientIp, startedAt: started })
    return response
  }
}

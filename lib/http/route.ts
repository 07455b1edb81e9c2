import 'server-only'
import { z } from 'zod'
import { hasBody, readBody, readJsonBody } from '@/lib/http/body'
import { errorBody, type ErrorFormat } from '@/lib/http/errors'
import { AppError, describeZodError } from '@/lib/errors'
import { internalKeyProblem } from '@/lib/http/internal-key'
import { INTERNAL_KEY_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import { bodyLimitOf, type Operation } from '@/lib/http/operation'
import { envelope } from '@/lib/http/envelope'
import { log } from '@/lib/log'

// route(): our one handler wrapper. It parses inputs with the operation's schemas, builds the
// context, calls the domain, serialises the result and maps anything thrown to the operation's
// error shape. The proxy has already applied the rate limit and set the request id and client IP.

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

export function route<
  Q extends z.ZodType<Record<string, unknown>> | undefined,
  P extends z.ZodType<Record<string, unknown>> | undefined,
  B extends z.ZodType | undefined,
>(op: Operation<Q, P, B>, handle: (ctx: RouteContext<Infer<Q>, Infer<P>, Infer<B>>) => unknown | Promise<unknown>) {
  const template = `/api${op.path}`
  const format = op.errorFormat ?? 'envelope'
  return function handler(request: Request, routeParams?: RouteParams): Promise<Response> {
    return envelope(request, { route: template, errorFormat: format, record: true }, async ({ requestId, clientIp }) => {
      const url = new URL(request.url)
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
      if (result instanceof Response) return result
      return Response.json(result, { status: op.success.status ?? 200, headers: { 'cache-control': op.cacheControl ?? 'no-store' } })
    })
  }
}

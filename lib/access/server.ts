import 'server-only'
import { cookies, headers } from 'next/headers'
import type { NextRequest } from 'next/server'
import { cache } from 'react'
import { logDenial } from '@/lib/access/refusal'
import { admitRequest, checkAccess, type AccessResult, type Identity } from '@/lib/access/policy'
import type { z } from 'zod'
import { AppError, describeZodError } from '@/lib/errors'
import { readJsonBody } from '@/lib/http/body'
import { envelope } from '@/lib/http/envelope'

// The access check inside pages and route handlers. The proxy has already refused what it should;
// checking again here means a path the proxy's matcher misses is still closed (Next.js data
// security guide: the proxy must not be the only check).

/** The access decision for the page being rendered; one verification per request (React cache). */
export const pageAccess = cache(async (): Promise<AccessResult> => checkAccess({ headers: await headers(), cookies: await cookies() }))

export interface AccessContext<B = undefined> {
  request: NextRequest
  requestId: string
  identity: Identity
  /** The route's dynamic segments (`{ id }` for /saved/[id]). */
  params: Record<string, string>
  /** The JSON body, validated by the route's schema (routes declared with one). */
  body: B
}

type Handle<B> = (ctx: AccessContext<B>) => unknown

/**
 * A query-application route handler, inside the request envelope (lib/http/envelope.ts):
 * same-origin and access checks, then the body (when the route declares a schema: read within
 * the JSON limit and validated at the edge, like a REST operation's), then `handle`. Its result
 * is sent as JSON (or as is when it is a Response); errors in the envelope shape
 * `{ error: { code, message, requestId } }`.
 */
export function withAccess(template: string, handle: Handle<undefined>): (request: NextRequest, context?: RouteContext) => Promise<Response>
export function withAccess<S extends z.ZodType>(
  template: string,
  spec: { body: S },
  handle: Handle<z.output<S>>,
): (request: NextRequest, context?: RouteContext) => Promise<Response>
export function withAccess(template: string, specOrHandle: { body: z.ZodType } | Handle<undefined>, maybeHandle?: Handle<unknown>) {
  const spec: { body?: z.ZodType } = typeof specOrHandle === 'function' ? {} : specOrHandle
  const handle = (typeof specOrHandle === 'function' ? specOrHandle : maybeHandle!) as Handle<unknown>
  return function handler(request: NextRequest, context?: RouteContext): Promise<Response> {
    return envelope(request, { route: template }, async ({ requestId }) => {
      const access = await admitRequest(request)
      if (!access.ok) {
        logDenial(requestId, template, request.method, access)
        throw new AppError(access.code, access.reason)
      }
      const body = spec.body ? parseBody(spec.body, await readJsonBody(request)) : undefined
      const result = await handle({ request, requestId, identity: access.identity, params: (await context?.params) ?? {}, body })
      const response = result instanceof Response ? result : Response.json(result)
      response.headers.set('cache-control', 'no-store')
      return response
    })
  }
}

type RouteContext = { params?: Promise<Record<string, string>> }

function parseBody<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value)
  if (!parsed.success) throw new AppError('invalid_input', describeZodError(parsed.error))
  return parsed.data
}

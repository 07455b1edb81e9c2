import 'server-only'
import { randomUUID } from 'node:crypto'
import { cookies, headers } from 'next/headers'
import type { NextRequest } from 'next/server'
import { cache } from 'react'
import { logDenial } from '@/lib/access/gate'
import { admitRequest, checkAccess, type AccessResult, type Identity } from '@/lib/access/policy'
import { AppError } from '@/lib/http/errors'
import { errorResponse, REQUEST_ID_HEADER } from '@/lib/http/route'

// The access check inside pages and route handlers. The proxy has already refused what it should;
// checking again here means a path the proxy's matcher misses is still closed (Next.js data
// security guide: the proxy must not be the only check).

/** The access decision for the page being rendered; one verification per request (React cache). */
export const pageAccess = cache(async (): Promise<AccessResult> => checkAccess({ headers: await headers(), cookies: await cookies() }))

export interface AccessContext {
  request: NextRequest
  requestId: string
  identity: Identity
  /** The route's dynamic segments (`{ id }` for /saved/[id]). */
  params: Record<string, string>
}

/**
 * A query-application route handler: same-origin and access checks, then `handle`; its result is
 * sent as JSON (or as is when it is a Response), anything thrown goes through the one error mapper
 * in the envelope shape `{ error: { code, message, requestId } }`.
 */
export function withAccess(template: string, handle: (ctx: AccessContext) => unknown) {
  return async function handler(request: NextRequest, context?: { params?: Promise<Record<string, string>> }): Promise<Response> {
    const requestId = request.headers.get(REQUEST_ID_HEADER) ?? randomUUID()
    try {
      const access = await admitRequest(request)
      if (!access.ok) {
        logDenial(requestId, template, request.method, access)
        throw new AppError(access.code, access.reason)
      }
      const result = await handle({ request, requestId, identity: access.identity, params: (await context?.params) ?? {} })
      const response = result instanceof Response ? result : Response.json(result)
      response.headers.set(REQUEST_ID_HEADER, requestId)
      response.headers.set('cache-control', 'no-store')
      return response
    } catch (error) {
      return errorResponse(error, 'envelope', requestId, template)
    }
  }
}

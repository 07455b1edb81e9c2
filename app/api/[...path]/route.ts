import { AppError } from '@/lib/errors'
import { errorResponse } from '@/lib/http/envelope'
import { CLIENT_IP_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import { recordAnswer } from '@/lib/http/request-log'

export const dynamic = 'force-dynamic'

// Any /api path no route matched: 404 in the standard envelope (and logged, to show probing).
async function notFound(request: Request) {
  const url = new URL(request.url)
  const requestId = request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID()
  const response = errorResponse(
    new AppError('not_found', `No operation at ${request.method} ${url.pathname}. See /api/docs.`),
    'envelope',
    requestId,
    url.pathname,
  )
  recordAnswer(request, { requestId, route: url.pathname, status: 404, clientIp: request.headers.get(CLIENT_IP_HEADER) ?? 'unknown' })
  return response
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE }

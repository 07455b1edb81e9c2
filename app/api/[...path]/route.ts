import { AppError } from '@/lib/http/errors'
import { errorResponse, REQUEST_ID_HEADER } from '@/lib/http/route'
import { recordRequest, requestFacts } from '@/lib/http/request-log'

export const dynamic = 'force-dynamic'

// Any /api path no route matched: 404 in the standard envelope (and logged, to show probing).
async function notFound(request: Request) {
  const url = new URL(request.url)
  const requestId = request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID()
  const response = errorResponse(new AppError('not_found', `No operation at ${request.method} ${url.pathname}. See /api/docs.`), 'envelope', requestId, url.pathname)
  recordRequest({
    time: new Date(),
    requestId,
    method: request.method,
    route: url.pathname,
    status: 404,
    durationMs: 0,
    clientIp: request.headers.get('x-tc-client-ip') ?? 'unknown',
    rateLimited: false,
    mcpTool: null,
    ...requestFacts(request, url),
  })
  return response
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE }

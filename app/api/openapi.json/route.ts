import { publicBaseUrlConfigured } from '@/lib/config'
import { openApiDocumentFor } from '@/lib/openapi/document'
import { requestOrigin } from '@/lib/http/request-origin'

export const dynamic = 'force-dynamic'

// GET /api/openapi.json - the OpenAPI 3.1 document; without PUBLIC_BASE_URL its server is the
// origin this request was made to.
export function GET(req: Request) {
  const perOrigin = !publicBaseUrlConfigured()
  const headers: Record<string, string> = { 'cache-control': 'public, max-age=300' }
  if (perOrigin) headers.vary = 'host, x-forwarded-host, x-forwarded-proto'
  return Response.json(openApiDocumentFor(requestOrigin(req.headers)), { headers })
}

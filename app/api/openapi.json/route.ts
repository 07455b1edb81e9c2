import { getOpenApiDocument } from '@/lib/openapi/document'

export const dynamic = 'force-dynamic'

// GET /api/openapi.json - the OpenAPI 3.1 document
export function GET() {
  return Response.json(getOpenApiDocument(), { headers: { 'cache-control': 'public, max-age=300' } })
}

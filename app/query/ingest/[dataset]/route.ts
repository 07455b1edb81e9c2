import { randomUUID } from 'node:crypto'
import { errorResponse, REQUEST_ID_HEADER } from '@/lib/http/route'
import { ingestRequest } from '@/lib/query/ingest'

// Machine-to-machine: authenticated by the Logpush shared secret, not by the access policy.
export const dynamic = 'force-dynamic'

// POST /query/ingest/{dataset} - load a Logpush batch (gzip'd NDJSON) into a gateway dataset
export async function POST(request: Request, { params }: { params: Promise<{ dataset: string }> }) {
  const requestId = request.headers.get(REQUEST_ID_HEADER) ?? randomUUID()
  try {
    const result = await ingestRequest((await params).dataset, request)
    return Response.json(result, { headers: { [REQUEST_ID_HEADER]: requestId, 'cache-control': 'no-store' } })
  } catch (error) {
    return errorResponse(error, 'envelope', requestId, '/query/ingest/{dataset}')
  }
}

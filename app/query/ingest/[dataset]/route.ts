import { envelope } from '@/lib/http/envelope'
import { ingestRequest } from '@/lib/ingest/logpush'

// Machine-to-machine: authenticated by the Logpush shared secret, not by the access policy.
export const dynamic = 'force-dynamic'

// POST /query/ingest/{dataset} - load a Logpush batch (gzip'd NDJSON) into a gateway dataset
export function POST(request: Request, { params }: { params: Promise<{ dataset: string }> }) {
  return envelope(request, { route: '/query/ingest/{dataset}' }, async () =>
    Response.json(await ingestRequest((await params).dataset, request), { headers: { 'cache-control': 'no-store' } }),
  )
}

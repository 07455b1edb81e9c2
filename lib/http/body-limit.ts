import 'server-only'
import { internalQueryPath, isQueryAppHost, QUERY_PREFIX } from '@/lib/access/query-host'
import { INGEST_BODY_MAX_BYTES, JSON_BODY_MAX_BYTES, MCP_BODY_MAX_BYTES, NO_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { bodyLimitOf } from '@/lib/http/operation'
import { operationsAt } from '@/lib/operations'
import { checkIngestSecret } from '@/lib/query/ingest'

// The byte limit of each request's body, for server.mjs, which cuts bodies there before Next
// buffers them (see server/transport.mjs). Each route enforces the same limit itself while reading,
// and answers 413 in its own error shape; this only keeps memory bounded before it runs.

type NodeHeaders = Record<string, string | string[] | undefined>
const header = (headers: NodeHeaders, name: string) => {
  const v = headers[name]
  return Array.isArray(v) ? v[0] : (v ?? null)
}

export function bodyLimitFor(method: string | undefined, url: string | undefined, headers: NodeHeaders): number {
  const raw = (url ?? '/').split('?')[0]
  const path = isQueryAppHost(header(headers, 'host')) ? internalQueryPath(raw) : raw
  if (path.startsWith(`${QUERY_PREFIX}/ingest/`)) {
    // Only a sender holding the secret may send a large batch; anyone else is refused unread.
    try {
      checkIngestSecret(new Headers(Object.entries(headers).flatMap(([k, v]): [string, string][] => (typeof v === 'string' ? [[k, v]] : []))))
      return INGEST_BODY_MAX_BYTES
    } catch {
      return 0
    }
  }
  if (path.startsWith(`${QUERY_PREFIX}/api/`)) return JSON_BODY_MAX_BYTES
  if (path === '/api/mcp') return MCP_BODY_MAX_BYTES
  const op = operationsAt(path).find((o) => o.method === method)
  return op ? bodyLimitOf(op) : NO_BODY_MAX_BYTES
}

/** Hands bodyLimitFor to server.mjs (a plain Node module that cannot import the app's code). */
export function registerBodyLimit() {
  ;(globalThis as unknown as Record<symbol, typeof bodyLimitFor>)[Symbol.for('utility-api.body-limit')] = bodyLimitFor
}

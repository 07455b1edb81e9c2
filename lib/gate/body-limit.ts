import 'server-only'
import { internalQueryPath, isQueryAppHost, QUERY_PREFIX } from '@/lib/access/query-host'
import { JSON_BODY_MAX_BYTES, MCP_BODY_MAX_BYTES, NO_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { bodyLimitOf } from '@/lib/http/operation'
import { operationsAt } from '@/lib/operations'
import { processSlot } from '@/lib/process-slot'

// The byte limit of each request's body, for server.mjs, which cuts bodies there before Next
// buffers them (see server/transport.mjs). Each route enforces the same limit itself while reading,
// and answers 413 in its own error shape; this only keeps memory bounded before it runs.

type NodeHeaders = Record<string, string | string[] | undefined>

/**
 * A subsystem's own limit for the paths it serves (Logpush ingest: only a sender holding the
 * secret may send a large batch); undefined when the path is not its own. Registered at start-up.
 */
export type BodyLimitRule = (path: string, headers: Headers) => number | undefined
const rules = processSlot<BodyLimitRule[]>('body-limit-rules')

export function addBodyLimitRule(rule: BodyLimitRule): void {
  rules.getOrCreate(() => []).push(rule)
}
const header = (headers: NodeHeaders, name: string) => {
  const v = headers[name]
  return Array.isArray(v) ? v[0] : (v ?? null)
}

export function bodyLimitFor(method: string | undefined, url: string | undefined, headers: NodeHeaders): number {
  const raw = (url ?? '/').split('?')[0]
  const path = isQueryAppHost(header(headers, 'host')) ? internalQueryPath(raw) : raw
  const registered = rules.get() ?? []
  if (registered.length) {
    const webHeaders = new Headers(Object.entries(headers).flatMap(([k, v]): [string, string][] => (typeof v === 'string' ? [[k, v]] : [])))
    for (const rule of registered) {
      const limit = rule(path, webHeaders)
      if (limit !== undefined) return limit
    }
  }
  if (path.startsWith(`${QUERY_PREFIX}/api/`)) return JSON_BODY_MAX_BYTES
  if (path === '/api/mcp') return MCP_BODY_MAX_BYTES
  const op = operationsAt(path).find((o) => o.method === method)
  return op ? bodyLimitOf(op) : NO_BODY_MAX_BYTES
}

/** Hands bodyLimitFor to server.mjs (a plain Node module that cannot import the app's code). */
export function registerBodyLimit() {
  processSlot<typeof bodyLimitFor>('body-limit').set(bodyLimitFor)
}

// Cache hints for the 2026-07-28 revision's cacheable results (`ttlMs`, `cacheScope`), read from
// Cache-Control values so that a hint means what the REST API already promises over HTTP.
//
// The tool list (and server/discover, which carries the same identity and capabilities) changes
// only when a deploy changes the code. No one can know when the next deploy comes, so the hint is
// the freshness the REST API gives its own description, GET /api/openapi.json
// (`public, max-age=300`): five minutes, public, since the list is the same for every caller.
// tests/integration/mcp-2026.test.ts checks the hint against that header.

/** The Cache-Control of GET /api/openapi.json, the REST API's description of itself. */
export const API_DESCRIPTION_CACHE_CONTROL = 'public, max-age=300'

export interface CacheHint {
  ttlMs: number
  cacheScope: 'public' | 'private'
}

/** `public, max-age=300` → `{ ttlMs: 300000, cacheScope: 'public' }`; no-store, no-cache or no max-age → 0, private. */
export function cacheHintFrom(cacheControl: string): CacheHint {
  const directives = cacheControl.split(',').map((d) => d.trim().toLowerCase())
  const maxAge = directives.find((d) => d.startsWith('max-age='))
  const seconds = maxAge ? Number(maxAge.slice('max-age='.length)) : 0
  const uncacheable = directives.includes('no-store') || directives.includes('no-cache') || !Number.isSafeInteger(seconds) || seconds <= 0
  if (uncacheable) return { ttlMs: 0, cacheScope: 'private' }
  return { ttlMs: seconds * 1000, cacheScope: directives.includes('public') ? 'public' : 'private' }
}

export const TOOL_LIST_CACHE_HINT = cacheHintFrom(API_DESCRIPTION_CACHE_CONTROL)

import { config } from '@/lib/config'
import { QUERY_HOME_HEADER } from '@/lib/http/headers'

// QUERY_APP_HOST: on that host the query application owns the whole origin, so its own paths
// (`/`, `/api/...`) work at the root: the proxy rewrites them to /query/... and pages write their links
// without the /query prefix (told by the proxy in QUERY_HOME_HEADER). Every other host keeps the public API at /api.

export const QUERY_PREFIX = '/query'

/** True when the Host header names QUERY_APP_HOST (port ignored unless the setting has one). */
export function isQueryAppHost(host: string | null, appHost = config.QUERY_APP_HOST): boolean {
  if (!appHost || !host) return false
  const want = appHost.toLowerCase()
  const got = host.toLowerCase()
  return want.includes(':') ? got === want : got.replace(/:\d+$/, '') === want
}

/** The internal path for a path requested on the query host: `/` → `/query`, `/api/me` → `/query/api/me`. */
export function internalQueryPath(path: string): string {
  if (path === QUERY_PREFIX || path.startsWith(`${QUERY_PREFIX}/`)) return path
  return path === '/' ? QUERY_PREFIX : `${QUERY_PREFIX}${path}`
}

/** Prefix of the links pages write: empty on the query host, /query elsewhere. */
export function queryBasePath(home: string | null): string {
  return home === '/' ? '' : QUERY_PREFIX
}

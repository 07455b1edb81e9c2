import { config, type Config } from '@/lib/config'

// Which browser pages may call /api/mcp. A page on another site must not be able to drive the
// tools through a visitor's browser, whether by a plain cross-site request or by DNS rebinding
// (a hostile name re-pointed at this server, so the request looks same-origin to the browser).
//
// - No Origin header: allowed. Every non-browser client (Claude Code, the SDK, curl) sends none,
//   and browsers send Origin on every POST, so a rebinding request always carries one.
// - Allowed origins: those of PUBLIC_BASE_URL and DEV_BASE_URL (the service's own pages) and each
//   MCP_ALLOWED_ORIGINS entry.
// - A loopback page of the same origin (Origin http://localhost:3000 on Host localhost:3000): a
//   local instance works from its own pages whatever PUBLIC_BASE_URL says. The loopback names
//   (localhost, 127.0.0.1, [::1]) count as one host, so a page at localhost:3000 may call the server
//   reached as 127.0.0.1:3000; the port must match. Only loopback names qualify, because a
//   rebinding attacker controls any other Host/Origin pair.
// The Host header alone is not checked: behind a reverse proxy or on a preview deployment it is
// not ours to predict, and the attack it would catch always shows in Origin.

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

function parseOrigin(value: string): URL | null {
  try {
    const url = new URL(value)
    return url.origin === 'null' ? null : url
  } catch {
    return null
  }
}

export function allowedMcpOrigins(c: Config = config): Set<string> {
  const urls = [c.PUBLIC_BASE_URL, c.DEV_BASE_URL, ...c.MCP_ALLOWED_ORIGINS]
  return new Set(
    urls.flatMap((u) => {
      const url = u ? parseOrigin(u) : null
      return url ? [url.origin] : []
    }),
  )
}

export function isAllowedMcpOrigin(origin: string | null, host: string | null, c: Config = config): boolean {
  if (origin === null) return true
  const url = parseOrigin(origin)
  if (!url) return false
  if (allowedMcpOrigins(c).has(url.origin)) return true
  if (!LOOPBACK.has(url.hostname) || host === null) return false
  const asked = parseOrigin(`${url.protocol}//${host.toLowerCase()}`)
  return asked !== null && LOOPBACK.has(asked.hostname) && asked.port === url.port
}

/** The origin to grant CORS to on /api/mcp, or null: only a browser origin that may call it. */
export function mcpCorsOrigin(headers: Headers, c: Config = config): string | null {
  const origin = headers.get('origin')
  return origin !== null && isAllowedMcpOrigin(origin, headers.get('host'), c) ? origin : null
}

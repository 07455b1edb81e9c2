import 'server-only'
import { config } from '@/lib/config'

// Headers every response carries, set by the proxy whatever gate answered: no MIME sniffing, a
// referrer policy, HSTS where the public address is https, and on pages a strict Content Security
// Policy. Its script-src admits only scripts carrying this request's nonce ('strict-dynamic' lets
// them load the build's chunks); Next reads the nonce from the request's Content-Security-Policy
// header and puts it on every script it renders, which needs the pages rendered per request
// (app/layout.tsx). Styles stay 'unsafe-inline': React style attributes, Scalar's and uPlot's
// injected styles; a nonce beside it would switch it off.

const CSP_HEADER = 'content-security-policy'

/** True for paths answered with HTML: everything but the API (whose reference page is a page). */
export const isPagePath = (path: string) => !(path === '/api' || path.startsWith('/api/')) || path === '/api/docs'

/** The Content-Security-Policy of one page response, built on a fresh nonce. */
export function pagePolicy(nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64')): string {
  // `next dev` (React's development build) evaluates code for its error overlays; a build never does.
  const devEval = process.env.NODE_ENV === 'development' ? " 'unsafe-eval'" : ''
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${devEval}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/**
 * Hands the page's policy to Next's rendering through the request (the gates forward the request's
 * headers) and returns it; removes any a client sent on other paths.
 */
export function requestPolicy(path: string, requestHeaders: Headers): string | null {
  if (!isPagePath(path)) {
    requestHeaders.delete(CSP_HEADER)
    return null
  }
  const policy = pagePolicy()
  requestHeaders.set(CSP_HEADER, policy)
  return policy
}

/** Sets the headers every response carries, and `policy` on a page; a gate's own stricter values stay. */
export function addSecurityHeaders(res: Response, policy: string | null): Response {
  res.headers.set('x-content-type-options', 'nosniff')
  if (!res.headers.has('referrer-policy')) res.headers.set('referrer-policy', 'strict-origin-when-cross-origin')
  if (config.PUBLIC_BASE_URL.startsWith('https://')) res.headers.set('strict-transport-security', 'max-age=31536000')
  if (policy) {
    res.headers.set(CSP_HEADER, policy)
    res.headers.set('x-frame-options', 'DENY') // browsers without frame-ancestors
  }
  return res
}

import ipaddr from 'ipaddr.js'
import { config, type Config } from '@/lib/config'
import { connectionIpIsStamped } from '@/lib/http/client-ip'
import { CONNECTION_IP_HEADER, TOKEN_HEADER, RELAYED_HEADER } from '@/lib/http/headers'
import type { ErrorCode } from '@/lib/errors'
import { isLoopbackAddress, keyMatches, localKeyCookieName, localOperatorState } from '@/lib/access/local-operator'
import { verifyAccessToken, type VerifiedIdentity, type VerifierSettings } from '@/lib/access/verify'

// The query application's access policy, applied to every page and route under /query (the
// Logpush ingest endpoint excepted: it authenticates with LOGPUSH_SECRET). Three modes, chosen by
// configuration alone:
// - verify: ACCESS_JWKS_URL, ACCESS_AUDIENCE and ACCESS_ISSUER set → the proxy's JWT is required;
// - local: no access setting at all, no DATABASE_URL and no TRUSTED_IP_HEADER (the embedded
//   defaults of `npm start`) → the person at the machine, as a labelled local operator, when every
//   one of these holds for the request: the server listens on a loopback address, the TCP peer
//   (stamped by server.mjs, never a header) is loopback, the request carries no forwarding header
//   (a reverse proxy on the same host adds one), and the browser presents this start's key (the
//   link printed by server.mjs sets it as an HttpOnly cookie; a proxy that strips headers still
//   cannot produce it);
// - unconfigured: settings half filled in, or a deployment's settings (DATABASE_URL,
//   TRUSTED_IP_HEADER) without the access policy → every request 503, naming what to set.
// There is no bypass value: nothing a deployment can set turns verification off.

export const TOKEN_COOKIE = 'CF_Authorization'

export type Identity = ({ kind: 'access' } & VerifiedIdentity) | { kind: 'local'; label: string; address: string }

export type AccessMode = { kind: 'verify'; settings: VerifierSettings } | { kind: 'local' } | { kind: 'unconfigured'; message: string }

export type AccessResult =
  | { ok: true; identity: Identity }
  | { ok: false; code: Extract<ErrorCode, 'unauthorized' | 'forbidden' | 'not_configured' | 'upstream_failed'>; reason: string; why: string }

export interface AccessRequest {
  headers: Headers
  cookies: { get(name: string): { value: string } | undefined }
}

const REQUIRED = ['ACCESS_JWKS_URL', 'ACCESS_AUDIENCE', 'ACCESS_ISSUER'] as const

export function accessMode(c: Config = config): AccessMode {
  const missing = REQUIRED.filter((k) => (Array.isArray(c[k]) ? c[k].length === 0 : !c[k]))
  const anySet = missing.length < REQUIRED.length || c.ACCESS_ALLOWED_EMAILS.length > 0
  if (anySet && missing.length) return { kind: 'unconfigured', message: `The access policy is incomplete: set ${missing.join(', ')}.` }
  if (anySet)
    return {
      kind: 'verify',
      settings: { jwksUrl: c.ACCESS_JWKS_URL!, audience: c.ACCESS_AUDIENCE, issuer: c.ACCESS_ISSUER!, allowedEmails: c.ACCESS_ALLOWED_EMAILS },
    }
  // A database or a trusted proxy header makes this a deployment: the local operator is off there.
  const deployment = [c.DATABASE_URL && 'DATABASE_URL', c.TRUSTED_IP_HEADER && 'TRUSTED_IP_HEADER'].filter(Boolean)
  if (deployment.length)
    return {
      kind: 'unconfigured',
      message: `The query application has no access policy: set ${REQUIRED.join(', ')} (see docs/query.md, “Access policy”). With ${deployment.join(' and ')} set, the local operator is off.`,
    }
  return { kind: 'local' }
}

// Headers a relay adds. Next fills x-forwarded-for with the peer address itself, so that one
// counts only when it names someone else.
const RELAY_HEADERS = ['forwarded', 'x-real-ip', 'cf-connecting-ip', 'true-client-ip']

/** The loopback peer address of a request nobody relayed, or null. */
export function loopbackPeer(headers: Headers): string | null {
  if (!connectionIpIsStamped()) return null
  const peer = headers.get(CONNECTION_IP_HEADER)
  if (!peer || !ipaddr.isValid(peer)) return null
  const addr = ipaddr.process(peer) // IPv4-mapped IPv6 → IPv4
  if (addr.range() !== 'loopback') return null
  if (headers.get(RELAYED_HEADER) === '1' || RELAY_HEADERS.some((h) => headers.has(h))) return null
  const xff = headers.get('x-forwarded-for')
  if (xff && xff.split(',').some((hop) => hop.trim() !== peer)) return null
  return addr.toString()
}

function tokenOf(req: AccessRequest): string | null {
  return req.headers.get(TOKEN_HEADER)?.trim() || req.cookies.get(TOKEN_COOKIE)?.value.trim() || null
}

export async function checkAccess(req: AccessRequest, mode: AccessMode = accessMode()): Promise<AccessResult> {
  switch (mode.kind) {
    case 'unconfigured':
      return { ok: false, code: 'not_configured', reason: mode.message, why: mode.message }
    case 'local': {
      const state = localOperatorState()
      if (!connectionIpIsStamped() || !state)
        return {
          ok: false,
          code: 'forbidden',
          reason: 'Without access settings only direct loopback requests are accepted.',
          why: 'local operator mode needs the connection address and the key: start the server with `npm start` (server.mjs)',
        }
      if (!isLoopbackAddress(state.listening))
        return {
          ok: false,
          code: 'not_configured',
          reason: `The server listens on a public address (${state.listening ?? 'unknown'}) and has no access policy: the local operator is off.`,
          why: `local operator mode: listening on ${state.listening ?? 'unknown'}, not a loopback address`,
        }
      const address = loopbackPeer(req.headers)
      if (!address)
        return {
          ok: false,
          code: 'forbidden',
          reason: 'Without access settings only direct loopback requests are accepted.',
          why: `local operator mode: peer ${req.headers.get(CONNECTION_IP_HEADER) || 'unknown'} is not a direct loopback connection, or the request was relayed`,
        }
      const presented = req.cookies.get(localKeyCookieName(state))?.value
      if (!keyMatches(presented, state.key))
        return {
          ok: false,
          code: 'unauthorized',
          reason: 'The local operator key is missing or wrong.',
          why: presented ? 'local operator mode: wrong key (the server was restarted?)' : 'local operator mode: no key cookie',
        }
      return { ok: true, identity: { kind: 'local', label: 'Local operator', address } }
    }
    case 'verify': {
      const token = tokenOf(req)
      if (!token) return { ok: false, code: 'unauthorized', reason: 'Access token missing.', why: `no ${TOKEN_HEADER} header or ${TOKEN_COOKIE} cookie` }
      const verdict = await verifyAccessToken(token, mode.settings)
      if (verdict.ok) return { ok: true, identity: { kind: 'access', ...verdict.identity } }
      switch (verdict.kind) {
        case 'expired':
          return { ok: false, code: 'forbidden', reason: 'Access token expired.', why: verdict.why }
        case 'not_allowed':
          return { ok: false, code: 'forbidden', reason: 'Not allowed.', why: verdict.why }
        case 'keys_unavailable':
          return { ok: false, code: 'upstream_failed', reason: 'Access keys unavailable; try again shortly.', why: verdict.why }
        default:
          return { ok: false, code: 'forbidden', reason: 'Access token invalid.', why: verdict.why }
      }
    }
  }
}

/** POSTs must come from our own origin (a browser on another site cannot ride the access cookie). */
export function crossOriginProblem(method: string, headers: Headers): string | null {
  if (method === 'GET' || method === 'HEAD') return null
  const site = headers.get('sec-fetch-site')
  if (site === 'same-origin') return null
  if (site && site !== 'none') return `sec-fetch-site is ${site}`
  const origin = headers.get('origin')
  if (!origin) return 'no Origin or Sec-Fetch-Site header'
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    return `malformed Origin ${origin}`
  }
  return host === headers.get('host') ? null : `origin ${origin} is not ${headers.get('host')}`
}

/**
 * A page opened from another site or a sibling subdomain (Sec-Fetch-Site cross-site or same-site):
 * its link may carry a filter someone else wrote, so the page shows it and waits for the operator
 * to run it. Our own pages (same-origin), typed or bookmarked addresses (none) and clients that do
 * not send the header run at once. Returns the header's value when the page must wait, else null.
 */
export function crossSiteNavigation(headers: Pick<Headers, 'get'>): string | null {
  const site = headers.get('sec-fetch-site')
  return site === 'cross-site' || site === 'same-site' ? site : null
}

/** The whole rule for one request: same origin for POSTs, then the access policy. */
export async function admitRequest(req: AccessRequest & { method: string }, mode?: AccessMode): Promise<AccessResult> {
  const crossOrigin = crossOriginProblem(req.method, req.headers)
  if (crossOrigin) return { ok: false, code: 'forbidden', reason: 'Cross-origin requests are not accepted.', why: crossOrigin }
  return checkAccess(req, mode)
}

import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose'
import { processSlot } from '@/lib/process-slot'

// Verification of the identity-aware proxy's signed JWT (Cloudflare Access, or any proxy that
// publishes a JWKS). Algorithms are pinned, audience and issuer required, expiry checked with a
// small clock skew. The key set is cached by jose: an unknown `kid` refetches it at most once per
// cooldown, so a stream of forged kids cannot turn into a stream of requests to the key server.

export const ACCESS_ALGORITHMS = ['RS256', 'ES256']
const CLOCK_TOLERANCE_S = 30
const JWKS_TIMEOUT_MS = 5000

export interface VerifierSettings {
  jwksUrl: string
  /** Accepted `aud` values: more than one while an application's AUD tag is being rotated. */
  audience: string[]
  issuer: string
  /** Addresses and `@domain` entries; empty means every verified identity may enter. */
  allowedEmails: string[]
  /** Minimum time between two key-set fetches caused by unknown kids (jose's cooldownDuration). */
  cooldownMs?: number
  /** How long a fetched key set is trusted before it is fetched again (jose's cacheMaxAge). */
  cacheMaxAgeMs?: number
}

export interface VerifiedIdentity {
  email: string | null
  subject: string
  issuer: string
  expiresAt: string
  name?: string
  groups?: string[]
}

export type Verdict = { ok: true; identity: VerifiedIdentity } | { ok: false; kind: 'invalid' | 'expired' | 'not_allowed' | 'keys_unavailable'; why: string }

type KeySet = ReturnType<typeof createRemoteJWKSet>
const keySets = processSlot<Map<string, KeySet>>('access-key-sets')

/** One cached key set per URL and timing, shared by the proxy and the route bundles. */
function keySetFor(s: VerifierSettings): KeySet {
  const cache = keySets.getOrCreate(() => new Map())
  const key = `${s.jwksUrl} ${s.cooldownMs ?? ''} ${s.cacheMaxAgeMs ?? ''}`
  let set = cache.get(key)
  if (!set) {
    set = createRemoteJWKSet(new URL(s.jwksUrl), {
      timeoutDuration: JWKS_TIMEOUT_MS,
      cooldownDuration: s.cooldownMs ?? 30_000,
      cacheMaxAge: s.cacheMaxAgeMs ?? 10 * 60_000,
    })
    cache.set(key, set)
  }
  return set
}

/** `ana@example.com` matches the entry `ana@example.com` or `@example.com` (case-insensitive). */
export function isEmailAllowed(email: string | null, allowed: string[]): boolean {
  if (allowed.length === 0) return true
  if (!email) return false
  const e = email.toLowerCase()
  return allowed.some((entry) => {
    const a = entry.toLowerCase()
    return a.startsWith('@') ? e.endsWith(a) && e.indexOf('@') === e.length - a.length : e === a
  })
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

function identityFrom(p: JWTPayload): VerifiedIdentity {
  const groups = Array.isArray(p.groups) ? p.groups.filter((g): g is string => typeof g === 'string') : undefined
  const name = text(p.name)
  return {
    email: text(p.email) ?? null,
    subject: p.sub ?? '',
    issuer: p.iss ?? '',
    expiresAt: new Date((p.exp ?? 0) * 1000).toISOString(),
    ...(name ? { name } : {}),
    ...(groups && groups.length ? { groups } : {}),
  }
}

// Accepted tokens, remembered for VERDICT_TTL_MS (never past their own expiry): the proxy and the
// route verify the same token for every request, and a page's requests carry the same token, so
// the signature check runs once per token and minute instead of twice per request. Shared by the
// proxy and route bundles like the key sets; refusals are never remembered.
const VERDICT_TTL_MS = 60_000
const VERDICT_CACHE_MAX = 1000
const verdicts = processSlot<Map<string, { identity: VerifiedIdentity; until: number }>>('access-verdicts')

function verdictCache(): Map<string, { identity: VerifiedIdentity; until: number }> {
  return verdicts.getOrCreate(() => new Map())
}

export async function verifyAccessToken(token: string, s: VerifierSettings): Promise<Verdict> {
  const cache = verdictCache()
  const key = `${s.jwksUrl}\n${s.issuer}\n${s.audience.join(' ')}\n${s.allowedEmails.join(' ')}\n${token}`
  const hit = cache.get(key)
  if (hit && hit.until > Date.now()) return { ok: true, identity: hit.identity }
  if (hit) cache.delete(key)
  const verdict = await verifySignedToken(token, s)
  if (verdict.ok) {
    const until = Math.min(Date.parse(verdict.identity.expiresAt), Date.now() + VERDICT_TTL_MS)
    if (until > Date.now()) {
      if (cache.size >= VERDICT_CACHE_MAX) cache.delete(cache.keys().next().value!)
      cache.set(key, { identity: verdict.identity, until })
    }
  }
  return verdict
}

async function verifySignedToken(token: string, s: VerifierSettings): Promise<Verdict> {
  try {
    const { payload } = await jwtVerify(token, keySetFor(s), {
      algorithms: ACCESS_ALGORITHMS,
      audience: s.audience,
      issuer: s.issuer,
      clockTolerance: CLOCK_TOLERANCE_S,
      requiredClaims: ['exp'],
    })
    const identity = identityFrom(payload)
    if (!isEmailAllowed(identity.email, s.allowedEmails))
      return { ok: false, kind: 'not_allowed', why: `${identity.email ?? `subject ${identity.subject}`} is not in ACCESS_ALLOWED_EMAILS` }
    return { ok: true, identity }
  } catch (error) {
    return { ok: false, ...classify(error) }
  }
}

function classify(error: unknown): { kind: 'invalid' | 'expired' | 'keys_unavailable'; why: string } {
  if (error instanceof errors.JWTExpired) return { kind: 'expired', why: `token expired: ${error.message}` }
  if (error instanceof errors.JWTClaimValidationFailed) return { kind: 'invalid', why: `claim ${error.claim} rejected: ${error.message}` }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  )
    return { kind: 'invalid', why: `${error.code}: ${error.message}` }
  // Timeouts, network failures, non-200 answers and malformed key sets: our side, not the token's.
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return { kind: 'keys_unavailable', why: `key set ${message}` }
}

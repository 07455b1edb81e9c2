import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isEmailAllowed, verifyAccessToken, type VerifierSettings } from '@/lib/access/verify'
import {
  createTestKey,
  signToken,
  startJwksServer,
  TEST_AUDIENCE,
  TEST_ISSUER,
  unsecuredToken,
  type JwksServer,
  type TestKey,
} from '@/test-support/access-keys'

// Token verification against a key set served on loopback, as the access proxy publishes it.

let rsa: TestKey
let ec: TestKey
let stranger: TestKey
let jwks: JwksServer
let settings: VerifierSettings
let serial = 0

/** Settings with a key-set URL of their own, so each test starts with an empty key cache. */
const fresh = (extra: Partial<VerifierSettings> = {}): VerifierSettings => ({ ...settings, jwksUrl: `${jwks.url}?t=${++serial}`, ...extra })
const now = () => Math.floor(Date.now() / 1000)

beforeAll(async () => {
  ;[rsa, ec, stranger] = await Promise.all([createTestKey('rsa-1'), createTestKey('ec-1', 'ES256'), createTestKey('rsa-unpublished')])
  jwks = await startJwksServer([rsa, ec])
  settings = { jwksUrl: jwks.url, audience: [TEST_AUDIENCE], issuer: TEST_ISSUER, allowedEmails: [] }
})

afterAll(() => jwks?.close())

describe('verifyAccessToken', () => {
  it('accepts a valid RS256 token and returns the identity', async () => {
    const verdict = await verifyAccessToken(await signToken(rsa, { name: 'Ana', groups: ['ops', 7] }), fresh())
    expect(verdict).toEqual({
      ok: true,
      identity: { email: 'ana@example.com', subject: 'user-ana', issuer: TEST_ISSUER, expiresAt: expect.stringMatching(/Z$/), name: 'Ana', groups: ['ops'] },
    })
  })

  it('accepts ES256 and a token of a service (no email) when no allow-list is set', async () => {
    expect((await verifyAccessToken(await signToken(ec), fresh())).ok).toBe(true)
    const service = await verifyAccessToken(await signToken(rsa, { email: undefined, sub: '', common_name: 'ci.access' }), fresh())
    expect(service).toMatchObject({ ok: true, identity: { email: null, subject: '' } })
  })

  it('tolerates a small clock skew on expiry, not more', async () => {
    expect((await verifyAccessToken(await signToken(rsa, { exp: now() - 5 }), fresh())).ok).toBe(true)
    expect(await verifyAccessToken(await signToken(rsa, { exp: now() - 300 }), fresh())).toMatchObject({ ok: false, kind: 'expired' })
  })

  it.each([
    ['wrong audience', { aud: 'another-app' }, /claim aud/],
    ['wrong issuer', { iss: 'https://evil.example.test' }, /claim iss/],
    ['not yet valid', { nbf: now() + 3600 }, /claim nbf/],
    ['no expiry', { exp: undefined }, /claim exp/],
  ])('refuses a token with %s', async (_name, claims, why) => {
    const verdict = await verifyAccessToken(await signToken(rsa, claims), fresh())
    expect(verdict).toMatchObject({ ok: false, kind: 'invalid' })
    expect(verdict.ok || verdict.why).toMatch(why)
  })

  it('refuses alg none, HS256, a forged signature and garbage', async () => {
    const hs = await new SignJWT({ email: 'ana@example.com', aud: TEST_AUDIENCE, iss: TEST_ISSUER, exp: now() + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
      .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'))
    const valid = await signToken(rsa)
    const forged = `${valid.split('.').slice(0, 2).join('.')}.${(await signToken(stranger)).split('.')[2]}`
    for (const token of [unsecuredToken(), hs, forged, 'not-a-jwt', `${valid}x`])
      expect(await verifyAccessToken(token, fresh()), token.slice(0, 20)).toMatchObject({ ok: false, kind: 'invalid' })
  })

  it('refuses a token whose kid is not in the key set', async () => {
    const verdict = await verifyAccessToken(await signToken(stranger), fresh())
    expect(verdict).toMatchObject({ ok: false, kind: 'invalid', why: expect.stringMatching(/ERR_JWKS_NO_MATCHING_KEY/) })
  })

  it('applies ACCESS_ALLOWED_EMAILS', async () => {
    const list = fresh({ allowedEmails: ['ben@example.com', '@corp.example'] })
    expect((await verifyAccessToken(await signToken(rsa, { email: 'BEN@example.com' }), list)).ok).toBe(true)
    expect((await verifyAccessToken(await signToken(rsa, { email: 'cy@corp.example' }), list)).ok).toBe(true)
    expect(await verifyAccessToken(await signToken(rsa), list)).toMatchObject({ ok: false, kind: 'not_allowed', why: /ana@example.com/ })
    expect(await verifyAccessToken(await signToken(rsa, { email: undefined }), list)).toMatchObject({ ok: false, kind: 'not_allowed' })
  })

  it('says the keys are unavailable when the key server fails', async () => {
    jwks.fail(true)
    try {
      expect(await verifyAccessToken(await signToken(rsa), fresh())).toMatchObject({ ok: false, kind: 'keys_unavailable' })
    } finally {
      jwks.fail(false)
    }
  })
})

describe('remembered verdicts', () => {
  it('remembers an accepted token per settings, and never a refusal', async () => {
    const s = fresh()
    const token = await signToken(rsa, { jti: 'remembered' })
    expect((await verifyAccessToken(token, s)).ok).toBe(true)
    const before = jwks.fetches()
    jwks.fail(true)
    try {
      // Accepted again without the key set: the verdict was remembered.
      expect(await verifyAccessToken(token, s)).toMatchObject({ ok: true, identity: { email: 'ana@example.com' } })
      // Other settings are another verdict: the allow-list still applies.
      expect(await verifyAccessToken(token, { ...s, allowedEmails: ['ben@example.com'] })).toMatchObject({ ok: false, kind: 'not_allowed' })
      // A token never seen with these settings still needs the key set.
      expect(await verifyAccessToken(token, fresh())).toMatchObject({ ok: false, kind: 'keys_unavailable' })
    } finally {
      jwks.fail(false)
    }
    expect(jwks.fetches() - before).toBe(1) // only for the settings that had not seen the token
    const forged = `${token.split('.').slice(0, 2).join('.')}.${(await signToken(stranger)).split('.')[2]}`
    expect((await verifyAccessToken(forged, s)).ok).toBe(false)
    expect((await verifyAccessToken(forged, s)).ok).toBe(false)
  })
})

describe('key set caching', () => {
  it('fetches the key set once for many tokens and does not refetch for unknown kids within the cooldown', async () => {
    const s = fresh({ cooldownMs: 10 * 60_000 })
    const before = jwks.fetches()
    for (let i = 0; i < 3; i++) expect((await verifyAccessToken(await signToken(rsa), s)).ok).toBe(true)
    for (let i = 0; i < 5; i++) expect((await verifyAccessToken(await signToken(stranger, {}, { kid: `forged-${i}` }), s)).ok).toBe(false)
    expect(jwks.fetches() - before).toBe(1)
  })

  it('refetches once on an unknown kid after the cooldown, picking up a rotated key', async () => {
    const s = fresh({ cooldownMs: 0 })
    const rotated = await createTestKey('rsa-2')
    expect((await verifyAccessToken(await signToken(rsa), s)).ok).toBe(true)
    const before = jwks.fetches()
    jwks.publish([rsa, ec, rotated])
    try {
      expect((await verifyAccessToken(await signToken(rotated), s)).ok).toBe(true)
      expect(jwks.fetches() - before).toBe(1)
      expect((await verifyAccessToken(await signToken(rotated), s)).ok).toBe(true) // now cached
      expect(jwks.fetches() - before).toBe(1)
    } finally {
      jwks.publish([rsa, ec])
    }
  })
})

describe('isEmailAllowed', () => {
  it.each([
    ['ana@example.com', ['ana@example.com'], true],
    ['Ana@Example.com', ['ana@example.com'], true],
    ['ana@example.com', ['@example.com'], true],
    ['ana@sub.example.com', ['@example.com'], false],
    ['ana@evilexample.com', ['@example.com'], false],
    ['ana@example.com.evil', ['@example.com'], false],
    ['ben@example.com', ['ana@example.com'], false],
    [null, ['@example.com'], false],
    [null, [], true],
  ] as const)('%s against %j → %s', (email, list, expected) => {
    expect(isEmailAllowed(email, [...list])).toBe(expected)
  })
})

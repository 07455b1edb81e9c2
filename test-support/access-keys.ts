import { createServer, type Server } from 'node:http'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'

// A local identity-aware proxy for tests: key pairs, a JWKS served on loopback (counting its
// fetches, keys changeable mid-test) and a signer for tokens with any claims.

export const TEST_AUDIENCE = 'test-aud-tag'
export const TEST_ISSUER = 'https://team.example.test'

export interface TestKey {
  kid: string
  alg: 'RS256' | 'ES256'
  privateKey: CryptoKey
  jwk: JWK
}

export async function createTestKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

export interface JwksServer {
  url: string
  fetches: () => number
  /** Replaces the published keys. */
  publish: (keys: TestKey[]) => void
  /** Makes the key server answer 500 (true) or the key set again (false). */
  fail: (on: boolean) => void
  close: () => Promise<void>
}

export async function startJwksServer(keys: TestKey[]): Promise<JwksServer> {
  let published = keys
  let failing = false
  let count = 0
  const server: Server = createServer((_req, res) => {
    count++
    if (failing) {
      res.writeHead(500).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((k) => k.jwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/cdn-cgi/access/certs`,
    fetches: () => count,
    publish: (next) => (published = next),
    fail: (on) => (failing = on),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

const now = () => Math.floor(Date.now() / 1000)

/** A token as the proxy would issue it; `claims` override or add (undefined removes a claim). */
export async function signToken(key: TestKey, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const payload: JWTPayload = {
    email: 'ana@example.com',
    sub: 'user-ana',
    aud: [TEST_AUDIENCE],
    iss: TEST_ISSUER,
    iat: now(),
    exp: now() + 3600,
    type: 'app',
    ...claims,
  }
  for (const k of Object.keys(payload)) if (payload[k] === undefined) delete payload[k]
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header }).sign(key.privateKey)
}

/** An unsecured token (`alg: none`) with the same claims: must never be accepted. */
export function unsecuredToken(claims: JWTPayload = {}): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ email: 'ana@example.com', sub: 'user-ana', aud: TEST_AUDIENCE, iss: TEST_ISSUER, exp: now() + 3600, ...claims })}.`
}

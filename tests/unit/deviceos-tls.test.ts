import { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { APPLE_ROOT_PEM_PATH, createPinnedDispatcher, dispatcherFor } from '@/lib/deviceos/apple-tls'
import { upstreamFetch, UpstreamUnreachable } from '@/lib/upstream/http'

// The gdmf trust path, exercised against a loopback HTTPS server whose certificate is signed by a
// test root (tests/fixtures/tls/README.md).

const tls = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8')
const applePem = readFileSync(APPLE_ROOT_PEM_PATH, 'utf8')

const server = createServer({ cert: tls('localhost.pem'), key: tls('localhost.key') }, (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('{"PublicAssetSets":{}}')
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
const url = `https://localhost:${(server.address() as AddressInfo).port}/v2/pmv`
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  )

describe('Apple root certificate', () => {
  it('is the shipped "Apple Root CA" with the fingerprint the README states', () => {
    const cert = new X509Certificate(applePem)
    expect(cert.subject).toContain('CN=Apple Root CA')
    expect(cert.ca).toBe(true)
    expect(cert.fingerprint256).toBe('B0:B1:73:0E:CB:C7:FF:45:05:14:2C:49:F1:29:5E:6E:DA:6B:CA:ED:7E:2C:68:C5:BE:91:B5:A1:10:01:F0:24')
    expect(readFileSync(APPLE_ROOT_PEM_PATH.replace('apple-root-ca.pem', 'README.md'), 'utf8')).toContain(cert.fingerprint256)
  })
})

describe('pinned dispatcher', () => {
  it('accepts a chain ending at the root it was built with', async () => {
    const res = await upstreamFetch('gdmf test', url, { dispatcher: createPinnedDispatcher(tls('test-ca.pem')), retries: 0 })
    expect(res.status).toBe(200)
    expect(res.text()).toContain('PublicAssetSets')
  })

  it("built from Apple's root, refuses a chain Apple did not sign", async () => {
    const error = await failure(upstreamFetch('gdmf test', url, { dispatcher: createPinnedDispatcher(applePem), retries: 0 }))
    expect(error).toBeInstanceOf(UpstreamUnreachable)
    expect((error as UpstreamUnreachable).details?.detail).toMatch(/certificate/i) // logged, not sent
  })

  it('the default trust store refuses the test chain too (verification stays on)', async () => {
    expect(await failure(upstreamFetch('gdmf test', url, { retries: 0 }))).toBeInstanceOf(UpstreamUnreachable)
  })

  it("is used for Apple's HTTPS hosts only", () => {
    expect(dispatcherFor('https://gdmf.apple.com/v2/pmv')).toBeDefined()
    expect(dispatcherFor('https://gdmf.apple.com/v2/pmv')).toBe(dispatcherFor('https://gdmf.apple.com/v2/pmv'))
    expect(dispatcherFor('http://127.0.0.1:8080/v2/pmv')).toBeUndefined()
    expect(dispatcherFor('https://mirror.example.com/pmv')).toBeUndefined()
    expect(dispatcherFor('https://gdmf.apple.com.evil.example/pmv')).toBeUndefined()
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'

// The headers every response carries: pages get a strict Content Security Policy whose nonce is
// on every script they render (fresh per request), and frame-ancestors 'none'; every response
// gets nosniff and a referrer policy; HSTS only where the public address is https.

let app: RunningApp
let https: RunningApp
beforeAll(async () => {
  ;[app, https] = await Promise.all([startApp({ NODE_ENV: 'production' }), startApp({ PUBLIC_BASE_URL: 'https://api.example.test' })])
}, 90_000)
afterAll(() => Promise.all([app?.stop(), https?.stop()]))

const nonceOf = (policy: string | null) => /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy ?? '')?.[1]

describe('pages', () => {
  it.each(['/', '/api/docs', '/query', '/query/dashboard?dataset=dns', '/no-such-page'])('%s: a nonce policy that its scripts carry', async (path) => {
    const res = await fetch(`${app.url}${path}`, { headers: { cookie: app.operatorCookie } })
    expect(res.status).toBe(path === '/no-such-page' ? 404 : 200)
    const policy = res.headers.get('content-security-policy')
    expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'(;|$)/)
    expect(policy).toContain("frame-ancestors 'none'")
    expect(policy).toContain("object-src 'none'")
    expect(policy).toContain("base-uri 'self'")
    expect(policy).not.toContain('unsafe-eval')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toMatch(/^(same-origin|strict-origin-when-cross-origin)$/)
    const html = await res.text()
    const scripts = html.match(/<script\b[^>]*>/g) ?? []
    expect(scripts.length).toBeGreaterThan(0)
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonceOf(policy)}"`)
  })

  it('draws a fresh nonce for every request', async () => {
    const nonces = await Promise.all([1, 2, 3].map(async () => nonceOf((await fetch(`${app.url}/`)).headers.get('content-security-policy'))))
    expect(new Set(nonces).size).toBe(3)
  })

  it("ignores a policy sent in the request: the server's own nonce is used", async () => {
    const res = await fetch(`${app.url}/`, { headers: { 'content-security-policy': "script-src 'nonce-chosenbyclient'" } })
    expect(res.headers.get('content-security-policy')).not.toContain('chosenbyclient')
    expect(await res.text()).not.toContain('chosenbyclient')
  })
})

describe('API responses', () => {
  it.each(['/api/generate/guid', '/api/openapi.json', '/api/no-such-operation'])('%s: nosniff, no page policy', async (path) => {
    const res = await fetch(`${app.url}${path}`)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
    expect(res.headers.get('content-security-policy')).toBeNull()
    await res.body?.cancel()
  })
})

describe('HSTS', () => {
  it('is sent when PUBLIC_BASE_URL is https, and not otherwise', async () => {
    for (const path of ['/', '/api/generate/guid']) {
      const secure = await fetch(`${https.url}${path}`)
      expect(secure.headers.get('strict-transport-security')).toBe('max-age=31536000')
      const plain = await fetch(`${app.url}${path}`)
      expect(plain.headers.get('strict-transport-security')).toBeNull()
      await Promise.all([secure.body?.cancel(), plain.body?.cancel()])
    }
  })
})

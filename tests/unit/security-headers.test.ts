import { describe, expect, it } from 'vitest'
import { addSecurityHeaders, isPagePath, pagePolicy, requestPolicy } from '@/lib/gate/security-headers'

// Which paths get the page policy, what it admits, and what every response gets.

describe('page policy', () => {
  it('admits only scripts with the nonce, frames nothing, and keeps everything else same-origin', () => {
    expect(pagePolicy('abc')).toBe(
      "default-src 'self'; script-src 'self' 'nonce-abc' 'strict-dynamic'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
        "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    )
    expect(pagePolicy()).not.toBe(pagePolicy())
  })

  it.each([
    ['/', true],
    ['/query/dashboard', true],
    ['/api/docs', true],
    ['/api', false],
    ['/api/generate/guid', false],
    ['/api/docs/extra', false],
  ])('%s is a page: %s', (path, page) => {
    expect(isPagePath(path)).toBe(page)
  })

  it('sets the policy on the request for pages and drops a client-sent one elsewhere', () => {
    const page = new Headers({ 'content-security-policy': 'client' })
    const policy = requestPolicy('/', page)
    expect(page.get('content-security-policy')).toBe(policy)
    const api = new Headers({ 'content-security-policy': 'client' })
    expect(requestPolicy('/api/generate/guid', api)).toBeNull()
    expect(api.has('content-security-policy')).toBe(false)
  })

  it("adds nosniff and a referrer policy everywhere, keeping a gate's stricter one", () => {
    const api = addSecurityHeaders(new Response('{}'), null)
    expect(Object.fromEntries(api.headers)).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'strict-origin-when-cross-origin' })
    expect(api.headers.has('content-security-policy')).toBe(false)
    const query = addSecurityHeaders(new Response('', { headers: { 'referrer-policy': 'same-origin' } }), pagePolicy('n'))
    expect(query.headers.get('referrer-policy')).toBe('same-origin')
    expect(query.headers.get('content-security-policy')).toContain("'nonce-n'")
    expect(query.headers.get('x-frame-options')).toBe('DENY')
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'

// The internal-key gate through real HTTP, on both internal operations: the proxy refuses before
// any work is done, with the `{error}` body of those operations, and no CORS permission is ever granted.

const OPS = ['/api/office/messagecenter/deduplicate', '/api/office/messagecenter/publish']
const post = (app: RunningApp, path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { method: 'POST', headers })

describe('internal operations with rotated keys configured', () => {
  let app: RunningApp
  beforeAll(async () => {
    // Two keys: the outgoing and the incoming one are both valid during a rotation.
    app = await startApp({ INTERNAL_API_KEYS: 'outgoing-internal-key-1-0123456789abcdef,incoming-internal-key-2-0123456789abcdef' })
  })
  afterAll(() => app.stop())

  it.each(OPS)('%s refuses a request without a key', async (path) => {
    const r = await post(app, path)
    expect(r.status).toBe(403)
    const body = await r.json()
    expect(body.error).toMatch(/Missing API key/)
    expect(body.requestId).toBe(r.headers.get('x-request-id'))
    expect(r.headers.get('ratelimit-policy')).toBeTruthy()
  })

  it.each(OPS)('%s refuses a wrong key', async (path) => {
    const r = await post(app, path, { 'x-tc-api-key': 'incoming-key-3' })
    expect(r.status).toBe(403)
    expect((await r.json()).error).toBe('Invalid API key.')
  })

  it.each(['outgoing-internal-key-1-0123456789abcdef', 'incoming-internal-key-2-0123456789abcdef'])('accepts %s (either key of a rotation)', async (key) => {
    // Past the gate the operation runs; with no blog configured it answers 503, not 403.
    const r = await post(app, `${OPS[0]}?dryRun=true`, { 'x-tc-api-key': key })
    expect(r.status).not.toBe(403)
    expect(r.status).toBe(503)
  })

  it('grants no CORS permission to internal operations', async () => {
    const pre = await fetch(`${app.url}${OPS[0]}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-tc-api-key' },
    })
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    const r = await post(app, OPS[0], { origin: 'https://elsewhere.example' })
    expect(r.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('internal operations with no key configured', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp()
  })
  afterAll(() => app.stop())

  it.each(OPS)('%s is closed to everyone', async (path) => {
    const r = await post(app, path, { 'x-tc-api-key': '' })
    expect(r.status).toBe(403)
    expect((await r.json()).error).toMatch(/no internal API key is configured/)
    const guess = await post(app, path, { 'x-tc-api-key': 'undefined' })
    expect(guess.status).toBe(403)
  })
})

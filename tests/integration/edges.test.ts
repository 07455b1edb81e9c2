import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { loadContract } from '../../test-support/openapi'
import { rawRequest } from '../../test-support/raw-request'

// Protocol edges of the REST API through the built server: undecodable paths, methods a path does
// not answer, media types, body limits and nesting, the trailing-slash redirect, conditional
// requests on missing pages, and what Node's own parser refuses. Every answer carries a request id
// and, for an operation, its own error shape as the OpenAPI document declares it.

let app: RunningApp
let contract: Awaited<ReturnType<typeof loadContract>>
beforeAll(async () => {
  app = await startApp({ LOGPUSH_SECRET: 'edges-test-logpush-secret-0123456789' })
  contract = await loadContract(app.url)
})
afterAll(() => app.stop())

/** Raw bytes over a socket: for requests no HTTP client would send. */
function rawSocket(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let text = ''
    socket.on('data', (d) => (text += d))
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

describe('undecodable percent-encoding in a path', () => {
  it.each([
    ['/api/policies/%FF', { error: { code: 'invalid_input' } }],
    ['/api/directory/convertid/%E0%A4%A', { error: { code: 'invalid_input' } }],
    ['/api/deviceosversion/%C3', { status: 'error' }],
    ['/api/blog/posts/%FF', { error: { code: 'invalid_input' } }],
    ['/api/domains/%FF', { error: { code: 'invalid_input' } }],
    ['/query/ingest/%FF', { error: { code: 'invalid_input' } }],
  ])('%s is a 400 in the operation shape', async (path, shape) => {
    const res = await fetch(`${app.url}${path}`, { method: path.startsWith('/query') ? 'POST' : 'GET' })
    const body = await res.json()
    expect(res.status).toBe(400)
    expect(body).toMatchObject(shape)
    expect(JSON.stringify(body)).toContain(res.headers.get('x-request-id')!)
    if (path.startsWith('/api/')) contract.expectValid('GET', path, 400, body)
  })
})

describe('methods a path does not answer', () => {
  it.each([
    ['PUT', '/api/health', 'GET, HEAD, OPTIONS'],
    ['DELETE', '/api/policies/privacy', 'GET, HEAD, OPTIONS'],
    ['PATCH', '/api/ipcheck', 'GET, HEAD, POST, OPTIONS'],
  ])('%s %s → 405 with Allow and a body', async (method, path, allow) => {
    const res = await fetch(`${app.url}${path}`, { method })
    const body = await res.json()
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe(allow)
    expect(JSON.stringify(body)).toContain(res.headers.get('x-request-id')!)
    contract.expectValid(path.endsWith('ipcheck') ? 'POST' : 'GET', path, 405, body)
  })
})

describe('request bodies', () => {
  // POST /api/ipcheck answers errors as {status: 'error', message} (the shape its clients read).
  const post = (body: string, type?: string) => fetch(`${app.url}/api/ipcheck`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body })

  it.each(['text/plain', 'application/x-www-form-urlencoded'])('a %s body is a 415 in the operation shape', async (type) => {
    const res = await post('{"ips":["24.48.0.1"]}', type)
    const body = await res.json()
    expect(res.status).toBe(415)
    expect(body).toMatchObject({ status: 'error', message: expect.stringContaining(type) })
    contract.expectValid('POST', '/api/ipcheck', 415, body)
  })

  it('a body over the operation limit is a 413 in its shape', async () => {
    const res = await post(JSON.stringify({ ips: ['x'.repeat(300 * 1024)] }), 'application/json')
    const body = await res.json()
    expect(res.status).toBe(413)
    expect(body).toEqual({ status: 'error', message: 'Request body is larger than 256 KiB (262144 bytes).', requestId: res.headers.get('x-request-id') })
    contract.expectValid('POST', '/api/ipcheck', 413, body)
  })

  it('nesting past 32 levels is a 400 before any parsing', async () => {
    const res = await post(`{"ips":${'['.repeat(40)}${']'.repeat(40)}}`, 'application/json')
    expect(res.status).toBe(400)
    expect((await res.json()).message).toMatch(/nested deeper than 32 levels/)
  })
})

describe('redirects and conditional requests', () => {
  it('redirects a trailing slash under /api with a request id', async () => {
    const res = await fetch(`${app.url}/api/health/?probe=live`, { redirect: 'manual' })
    expect(res.status).toBe(308)
    expect(res.headers.get('location')).toMatch(/\/api\/health\?probe=live$/)
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('answers If-None-Match: * on a missing page with its 404, not an empty 304', async () => {
    for (const path of ['/no/such/page', '/api/no/such/operation']) {
      const res = await fetch(`${app.url}${path}`, { headers: { 'if-none-match': '*' } })
      expect(res.status).toBe(404)
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })
})

describe('health: liveness and readiness', () => {
  it('answers probe=live without checking dependencies', async () => {
    const res = await fetch(`${app.url}/api/health?probe=live`)
    const body = await res.json()
    expect(res.status).toBe(200)
    expect(body.checks).toEqual({})
    contract.expectValid('GET', '/api/health', 200, body)
  })

  it('reports the request log among the checks', async () => {
    const body = await (await fetch(`${app.url}/api/health`)).json()
    expect(body.checks.requestLog).toMatchObject({ status: 'ok', required: false })
    expect(body.checks.database.required).toBe(false)
  })
})

describe("requests Node's parser refuses", () => {
  it('answers headers too large with 431 in the envelope and a request id', async () => {
    const text = await rawSocket(app.port, `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    const [head, body] = text.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 431 /)
    const id = /X-Request-Id: (\S+)/i.exec(head)![1]
    expect(JSON.parse(body)).toEqual({ error: { code: 'headers_too_large', message: 'Request headers are too large.', requestId: id } })
  })

  it('answers a malformed request with 400 in the envelope', async () => {
    const text = await rawSocket(app.port, 'GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n')
    expect(text).toMatch(/^HTTP\/1\.1 400 /)
    expect(JSON.parse(text.split('\r\n\r\n')[1]).error).toMatchObject({ code: 'invalid_input', requestId: expect.any(String) })
  })

  it('answers an absolute-form target for another host with 400, and serves one for its own host', async () => {
    const foreign = await rawSocket(app.port, 'GET http://evil.example/api/health HTTP/1.1\r\nHost: evil.example\r\n\r\n')
    expect(foreign).toMatch(/^HTTP\/1\.1 400 /)
    expect(foreign).not.toMatch(/evil\.example/i)
    expect(JSON.parse(foreign.split('\r\n\r\n')[1]).error).toMatchObject({ code: 'invalid_input', requestId: expect.any(String) })
    const mismatched = await rawSocket(app.port, `GET http://evil.example/api/health HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\n\r\n`)
    expect(mismatched).toMatch(/^HTTP\/1\.1 400 /)
    const own = await rawSocket(
      app.port,
      `GET http://127.0.0.1:${app.port}/api/health?probe=live HTTP/1.1\r\nHost: 127.0.0.1:${app.port}\r\nConnection: close\r\n\r\n`,
    )
    expect(own).toMatch(/^HTTP\/1\.1 200 /)
  })

  it('keeps serving after them', async () => {
    expect((await rawRequest(`${app.url}/api/health?probe=live`)).status).toBe(200)
  })
})

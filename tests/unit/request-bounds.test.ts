import { setTimeout as sleep } from 'node:timers/promises'
import type { IncomingMessage } from 'node:http'
import { EventEmitter } from 'node:events'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { jsonDepth, JSON_MAX_DEPTH, parseJsonText, readBody, readJsonBody } from '@/lib/http/body'
import { ERROR_STATUS } from '@/lib/errors'
import { acceptsJson, frame } from '@/lib/mcp/framing'
import { createBreaker } from '@/lib/circuit-breaker'
import { capRequestBody, clientErrorResponse, originFormTarget, ownAuthorities, TRANSPORT_ERRORS } from '@/server/transport.mjs'

// Input bounds and protocol framing, piece by piece; the fault stage drives them through the server.

// As a request reaches a route: a string body declares its length, a stream is chunked.
const post = (body: string | ReadableStream | null, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  new Request('http://t/x', {
    method: 'POST',
    body,
    headers: {
      ...headers,
      ...(typeof body === 'string' ? { 'content-length': String(Buffer.byteLength(body)) } : body ? { 'transfer-encoding': 'chunked' } : {}),
    },
    duplex: 'half',
  } as RequestInit)
const appError = async (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; status: number }) => [e.status, e.code],
  )

describe('request bodies', () => {
  it('measures nesting without parsing, ignoring brackets inside strings', () => {
    expect(jsonDepth('{"a":[1,{"b":"[[[{{{"}]}')).toBe(3)
    expect(jsonDepth('"\\"[["')).toBe(0)
    expect(jsonDepth('['.repeat(1_000_000), 40)).toBe(41) // stops early
  })

  it('refuses deep nesting and invalid JSON with 400, before JSON.parse', () => {
    expect(parseJsonText(`${'['.repeat(JSON_MAX_DEPTH)}${']'.repeat(JSON_MAX_DEPTH)}`)).toBeDefined()
    expect(() => parseJsonText('['.repeat(JSON_MAX_DEPTH + 1))).toThrow(/nested deeper than 32/)
    expect(() => parseJsonText('{"a":')).toThrow(/not valid JSON/)
    expect(parseJsonText('  ')).toBeUndefined()
  })

  it('answers 413 from Content-Length alone, and while a body without one streams in', async () => {
    expect(await appError(readBody(post('x'.repeat(11)), 10))).toEqual([413, 'payload_too_large'])
    let pulled = 0
    const endless = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++, c.enqueue(new Uint8Array(1024))) })
    expect(await appError(readBody(post(endless), 4096))).toEqual([413, 'payload_too_large'])
    expect(pulled).toBeLessThan(10)
  })

  it('answers 415 for a body that is not declared as JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      expect(await appError(readJsonBody(post('{}', { 'content-type': type })))).toEqual([415, 'unsupported_media_type'])
    const untyped = post('{}', {})
    untyped.headers.delete('content-type') // fetch would have said text/plain
    expect(await appError(readJsonBody(untyped))).toEqual([415, 'unsupported_media_type'])
    expect(await readJsonBody(post('{"a":1}', { 'content-type': 'application/json; charset=utf-8' }))).toEqual({ a: 1 })
    expect(await readJsonBody(post('{"a":1}', { 'content-type': 'application/merge-patch+json' }))).toEqual({ a: 1 })
    expect(await readJsonBody(post(null, {}))).toBeUndefined() // no body: nothing to type
  })
})

describe('server.mjs transport', () => {
  it('reduces an absolute-form target for its own authority to the path and refuses any other', () => {
    const own = ownAuthorities({ hostname: '127.0.0.1', port: 3000, publicBaseUrl: 'https://API.example.com', queryAppHost: 'query.example.com' })
    const target = (url: string, host = 'x') => {
      const req = { url, headers: { host } } as unknown as IncomingMessage
      return [originFormTarget(req, own), req.headers.host]
    }
    expect(target('/api/health?x=1')).toEqual(['/api/health?x=1', 'x'])
    expect(target('http://127.0.0.1:3000/api/health?x=1', 'evil.example')).toEqual(['/api/health?x=1', '127.0.0.1:3000'])
    expect(target('http://localhost:3000/api/health')[0]).toBe('/api/health')
    expect(target('https://api.example.com/api/health')[0]).toBe('/api/health')
    expect(target('http://query.example.com/query')[0]).toBe('/query')
    expect(target('http://evil.example/api/health', 'evil.example')[0]).toBeNull()
    expect(target('http://127.0.0.1:3001/api/health')[0]).toBeNull()
    expect(target('ftp://127.0.0.1:3000/x')[0]).toBeNull()
    expect(target('not a url')[0]).toBeNull()
  })

  it('answers parser errors in the envelope with a request id, with codes the API knows', () => {
    for (const [status, code] of Object.values(TRANSPORT_ERRORS)) expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(status)
    const raw = clientErrorResponse('HPE_HEADER_OVERFLOW', 'id-1')
    expect(raw).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
    expect(raw).toContain('X-Request-Id: id-1\r\n')
    expect(JSON.parse(raw.split('\r\n\r\n')[1])).toEqual({ error: { code: 'headers_too_large', message: 'Request headers are too large.', requestId: 'id-1' } })
    expect(clientErrorResponse('HPE_INVALID_METHOD')).toMatch(/^HTTP\/1\.1 400 /)
  })

  it('lets one byte past the limit into the application and drops the rest as it arrives', async () => {
    const req = new Readable({ read() {} }) as Readable & EventEmitter
    capRequestBody(req, 10)
    for (let i = 0; i < 100; i++) expect(req.push(Buffer.alloc(4, 97))).toBe(true)
    req.push(null)
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    expect(Buffer.concat(chunks).length).toBe(11)
  })
})

describe('MCP framing', () => {
  const call = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/list' })
  it('answers -32600 for values that are not JSON-RPC messages', () => {
    expect(frame({ jsonrpc: '2.0', method: 1, id: 7 }, null)).toMatchObject({ kind: 'answer', status: 400, body: { id: 7, error: { code: -32600 } } })
    expect(frame(42, null)).toMatchObject({ kind: 'answer', body: { id: null, error: { code: -32600 } } })
  })

  it('accepts batches only under 2025-03-26, refuses `[]`, and answers repeated ids with -32600', () => {
    expect(frame([], null)).toMatchObject({ kind: 'answer', status: 400, body: { id: null, error: { code: -32600 } } })
    expect(frame([call(1)], '2025-06-18')).toMatchObject({ kind: 'answer', body: { error: { code: -32600, message: expect.stringMatching(/2025-06-18/) } } })
    expect(frame([call(1)], '2025-11-25')).toMatchObject({ kind: 'answer' })
    expect(frame([call(1)], null)).toMatchObject({ kind: 'deliver', batch: true, messages: [call(1)], errors: [] })
    const dup = frame([call(1), call(1), 5], '2025-03-26')
    expect(dup).toMatchObject({
      kind: 'deliver',
      messages: [call(1)],
      errors: [
        { id: 1, error: { code: -32600 } },
        { id: null, error: { code: -32600 } },
      ],
    })
  })

  it('answers an unsupported protocol version with the versions it speaks', () => {
    expect(frame(call(3), '2026-07-28')).toMatchObject({
      kind: 'answer',
      status: 400,
      body: { id: 3, error: { code: -32602, data: { requested: '2026-07-28', supported: expect.arrayContaining(['2025-11-25']) } } },
    })
  })

  it.each([
    [null, true],
    ['*/*', true],
    ['application/*', true],
    ['application/json, text/event-stream', true],
    ['text/event-stream', false],
    ['text/html', false],
    ['application/json;q=0, */*;q=0', false],
  ])('Accept %s → %s', (accept, ok) => {
    expect(acceptsJson(accept)).toBe(ok)
  })
})

describe('circuit breaker', () => {
  it('opens after consecutive failures, stops calling, probes in the background and closes', async () => {
    let healthy = false
    let calls = 0
    const breaker = createBreaker({
      name: 'test store',
      threshold: 3,
      minOpenMs: 20,
      maxOpenMs: 40,
      probe: async () => {
        if (!healthy) throw new Error('down')
      },
    })
    const task = async () => {
      calls++
      if (!healthy) throw new Error('down')
      return 'store'
    }
    for (let i = 0; i < 3; i++) expect(await breaker.run(task, () => 'fallback')).toBe('fallback')
    expect(breaker.snapshot()).toMatchObject({ state: 'open', opened: 1 })
    for (let i = 0; i < 10; i++) await breaker.run(task, () => 'fallback')
    expect(calls).toBe(3) // not called while open
    await sleep(60)
    expect(breaker.isOpen()).toBe(true) // the probe failed: still open, longer interval
    healthy = true
    await expect.poll(() => breaker.isOpen(), { timeout: 1000 }).toBe(false)
    expect(await breaker.run(task, () => 'fallback')).toBe('store')
    breaker.stop()
  })
})

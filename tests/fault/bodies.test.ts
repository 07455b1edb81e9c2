import { randomBytes, randomUUID } from 'node:crypto'
import http from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { DATABASE_URL, report, rssMb } from '../../test-support/fault'
import { percentile, runLoad } from '../../test-support/load'

// Oversized bodies against the built server: twenty concurrent 10 MiB bodies are refused with 413
// while other routes stay fast and memory stays bounded, and Logpush batches of 9, 10, 11 and 50 MiB,
// gzip'd and not, are either stored whole or refused with 413: never stored short.

const MiB = 1024 * 1024
const SECRET = `fault-bodies-logpush-secret-0123456789-${process.pid}`
let app: RunningApp

beforeAll(async () => {
  app = await startApp({ DATABASE_URL, LOGPUSH_SECRET: SECRET, RATE_LIMIT_MAX: '1000000' })
})
afterAll(() => app.stop())

describe('twenty concurrent 10 MiB bodies', () => {
  it('are refused with 413 in the operation shape; other routes stay fast and RSS stays bounded', async () => {
    const probe = () => fetch(`${app.url}/api/generate/guid`)
    const baseline = await runLoad(probe, { connections: 1, durationMs: 2000 })
    const rssBefore = await rssMb(app.pid)
    let rssPeak = rssBefore
    const sampler = setInterval(() => void rssMb(app.pid).then((mb) => (rssPeak = Math.max(rssPeak, mb))), 50)
    const nested = Buffer.alloc(10 * MiB, '[')
    const declared = Array.from({ length: 15 }, () =>
      fetch(`${app.url}/api/ipcheck`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(nested) }),
    )
    // Five more without Content-Length: the limit applies while the body streams in.
    const streamed = Array.from({ length: 5 }, () => {
      let sent = 0
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 10 * MiB) return controller.close()
          sent += MiB
          controller.enqueue(nested.subarray(0, MiB))
        },
      })
      return fetch(`${app.url}/api/ipcheck`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit)
    })
    const during = runLoad(probe, { connections: 1, durationMs: 3000 })
    const answers = await Promise.all(
      [...declared, ...streamed].map(async (p) => {
        const res = await p
        return { status: res.status, body: await res.json(), id: res.headers.get('x-request-id') }
      }),
    ).finally(() => clearInterval(sampler))
    const probes = await during
    const p99Baseline = percentile(
      baseline.map((s) => s.ms),
      99,
    )
    const p99During = percentile(
      probes.map((s) => s.ms),
      99,
    )
    // The goal is a p99 of 100 ms for other routes while the bodies stream in; on a loaded shared
    // machine the same probe may already be slower before the storm, so the bound is 100 ms or twice that baseline plus 50 ms, whichever is larger.
    const bound = Math.max(100, 2 * p99Baseline + 50)
    report('20 concurrent 10 MiB bodies', {
      statuses: [...new Set(answers.map((a) => a.status))],
      p99BaselineMs: Math.round(p99Baseline),
      p99DuringMs: Math.round(p99During),
      boundMs: Math.round(bound),
      probes: probes.length,
      probeStatuses: [...new Set(probes.map((s) => s.error ?? s.status))],
      rssBeforeMb: Math.round(rssBefore),
      rssPeakMb: Math.round(rssPeak),
    })
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(413))
    for (const a of answers) expect(a.body).toEqual({ status: 'error', message: 'Request body is larger than 256 KiB (262144 bytes).', requestId: a.id })
    expect(probes.every((s) => s.status === 200)).toBe(true)
    expect(p99During).toBeLessThan(bound)
    expect(rssPeak - rssBefore).toBeLessThan(150)
    expect((await fetch(`${app.url}/api/health?probe=live`)).status).toBe(200)
  })
})

describe('Logpush batches around the old 10 MiB cut', () => {
  /** NDJSON of the http dataset, with poorly compressible URLs so that gzip'd sizes are real too. */
  function batch(minBytes: number, compressed: boolean): { body: Buffer; lines: number } {
    const lines: string[] = []
    let size = 0
    const target = compressed ? minBytes / 0.66 : minBytes
    while (size < target) {
      const line = JSON.stringify({
        Datetime: '2026-03-01T10:00:00Z',
        Action: 'allow',
        HTTPHost: 'example.org',
        URL: `https://example.org/${randomBytes(1100).toString('base64')}`,
        RequestID: randomUUID(),
      })
      lines.push(line)
      size += line.length + 1
    }
    const text = Buffer.from(`${lines.join('\n')}\n`)
    const body = compressed ? gzipSync(text, { level: 1 }) : text
    expect(body.length).toBeGreaterThanOrEqual(minBytes)
    return { body, lines: lines.length }
  }

  it.each([
    [9, false],
    [10, false],
    [11, false],
    [9, true],
    [10, true],
    [11, true],
  ])('%i MiB (gzip: %s) is stored whole', async (mib, compressed) => {
    const { body, lines } = batch(mib * MiB, compressed)
    const res = await fetch(`${app.url}/query/ingest/http`, {
      method: 'POST',
      headers: { 'x-logpush-secret': SECRET, 'content-type': 'application/x-ndjson' },
      body: new Uint8Array(body),
    })
    const result = await res.json()
    report(`ingest ${mib} MiB${compressed ? ' gzip' : ''}`, { bytes: body.length, lines, status: res.status, stored: result.inserted })
    expect(res.status).toBe(200)
    expect(result).toMatchObject({ lines, inserted: lines, malformed: 0 })
  })

  it.each([false, true])('50 MiB (gzip: %s) is refused with 413, declared or streamed', async (compressed) => {
    const body = compressed ? Buffer.concat([gzipSync(Buffer.alloc(1024)), randomBytes(50 * MiB)]) : Buffer.alloc(50 * MiB, 'x')
    const declared = await postEarlyAnswer(`${app.url}/query/ingest/http`, { 'x-logpush-secret': SECRET }, body)
    const streamed = await postEarlyAnswer(`${app.url}/query/ingest/http`, { 'x-logpush-secret': SECRET }, body, { chunked: true })
    const bodies = [declared.json, streamed.json]
    report(`ingest 50 MiB${compressed ? ' gzip' : ''}`, { declared: declared.status, streamed: streamed.status })
    expect([declared.status, streamed.status]).toEqual([413, 413])
    for (const b of bodies) expect(b.error).toMatchObject({ code: 'payload_too_large', message: 'Batch is larger than 32 MiB (33554432 bytes).' })
  })

  it('refuses a large body unread without the secret', async () => {
    const res = await fetch(`${app.url}/query/ingest/http`, { method: 'POST', body: new Uint8Array(20 * MiB) })
    expect(res.status).toBe(401)
  })
})

/**
 * POSTs a body, its length declared or chunked, and resolves with the answer as soon as it arrives, which
 * for a refused length may be before the body is sent: a raw client, because fetch fails the whole
 * exchange when the server closes the connection on a body it will not read (as servers may, once
 * they have answered). An error before any answer still fails the test.
 */
function postEarlyAnswer(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  { chunked = false } = {},
): Promise<{ status: number; json: { error: { code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    let answered = false
    // Chunked: no length declared, the body streams in 1 MiB pieces.
    const req = http.request(url, { method: 'POST', headers: chunked ? headers : { ...headers, 'content-length': String(body.length) } }, (res) => {
      answered = true
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => {
        req.destroy()
        resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) })
      })
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    if (!chunked) return req.end(body)
    for (let at = 0; at < body.length; at += MiB) req.write(body.subarray(at, at + MiB))
    req.end()
  })
}

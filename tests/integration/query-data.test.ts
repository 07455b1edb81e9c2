import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'

// The query application's data side in the built server: migrations at start-up (PGlite in a
// directory), the database health check, Logpush ingest over HTTP, and the request log flushed on
// SIGTERM.

const SECRET = `itest-logpush-secret-0123456789abcdef-${process.pid}`
const dir = mkdtempSync(path.join(tmpdir(), 'qd-itest-'))
let app: RunningApp

const ingest = (dataset: string, body: BodyInit, headers: Record<string, string> = { 'x-logpush-secret': SECRET }) =>
  fetch(`${app.url}/query/ingest/${dataset}`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...headers }, body })

beforeAll(async () => {
  // The batches are from fixed days in the past: keep them whatever today's date (retention).
  app = await startApp({ LOGPUSH_SECRET: SECRET, PGLITE_DIR: dir, QUERY_RETENTION_DAYS: '3660' })
}, 90_000)

afterAll(async () => {
  await app?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('query data in the running server', () => {
  it('reports the database in /api/health (PGlite: not required)', async () => {
    const res = await fetch(`${app.url}/api/health`)
    const body = await res.json()
    expect(body.checks.database).toMatchObject({ status: 'ok', required: false, detail: 'pglite reachable, migrations applied' })
  })

  it('loads a gzip Logpush batch once, counting malformed lines', async () => {
    const lines = [
      { Datetime: '2026-02-01T10:00:00Z', Action: 'block', HTTPHost: 'malware.bad.test', DestinationPort: 443, SourceIP: '192.0.2.7', RequestID: 'itest-1' },
      { Datetime: '2026-02-01T10:00:01Z', Action: 'allow', HTTPHost: 'example.org', DestinationPort: 80, SourceIP: '192.0.2.8', RequestID: 'itest-2' },
    ]
    const batch = new Uint8Array(
      gzipSync(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"Datetime": "2026-02-01T10:00:02Z", "DestinationPort": "not a port"}\n`),
    )
    const first = await ingest('http', batch, { 'x-logpush-secret': SECRET, 'content-encoding': 'gzip' })
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({
      dataset: 'http',
      lines: 3,
      inserted: 2,
      duplicates: 0,
      malformed: 1,
      errors: [{ line: 3, message: 'DestinationPort: expected integer, got "not a port"' }],
    })
    const again = await ingest('http', batch, { 'x-logpush-secret': SECRET, 'content-encoding': 'gzip' })
    expect(await again.json()).toMatchObject({ inserted: 0, duplicates: 2, malformed: 1 })
  })

  it.each([
    [{}, 401, 'unauthorized'],
    [{ 'x-logpush-secret': 'wrong' }, 403, 'forbidden'],
  ])('refuses %j with %i', async (headers, status, code) => {
    const res = await ingest('dns', '{}', headers)
    expect(res.status).toBe(status)
    expect((await res.json()).error.code).toBe(code)
  })

  it('answers 404 for a dataset that cannot be ingested', async () => {
    const res = await ingest('requests', '{}')
    expect(res.status).toBe(404)
  })

  it('writes the request log, flushed on shutdown, with the client network only', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${app.url}/api/generate/guid?ref=itest`)
      statuses.push(res.status)
      await res.arrayBuffer()
    }
    await app.stop() // SIGTERM: the shutdown hook flushes what is buffered
    const db = await PGlite.create(dir)
    try {
      const { rows } = await db.query<{ route: string; query: string; client_ip: string; referrer: string; status: number }>(
        "SELECT route, query, client_ip::text AS client_ip, referrer, status FROM request_log WHERE route = '/api/generate/guid'",
      )
      expect(rows).toHaveLength(3)
      expect(rows[0]).toEqual({ route: '/api/generate/guid', query: 'ref=***', client_ip: '127.0.0.0/32', referrer: 'itest', status: statuses[0] })
      const http = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM gateway_http WHERE request_id LIKE 'itest-%'")
      expect(http.rows[0].n).toBe(2)
    } finally {
      await db.close()
    }
  })
})

describe('ingest without a secret configured', () => {
  it('answers 503', async () => {
    const other = await startApp({ PGLITE_DIR: 'memory://' })
    try {
      const res = await fetch(`${other.url}/query/ingest/dns`, { method: 'POST', body: '{}' })
      expect(res.status).toBe(503)
      expect((await res.json()).error.message).toContain('LOGPUSH_SECRET')
    } finally {
      await other.stop()
    }
  }, 90_000)
})

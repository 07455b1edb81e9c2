import { gzipSync } from 'node:zlib'
import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { describe, expect, it } from 'vitest'
import type { Db } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { decodeBatch, ingestDataset } from '@/lib/ingest/logpush'
import { checkIngestSecret } from '@/lib/ingest/secret'
import { createRequestLogWriter, truncateIp } from '@/lib/request-log/writer'
import { requestLogEntry } from '@/test-support/request-log-entry'

describe('truncateIp', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0'],
    ['10.1.2.3', '10.1.2.0'],
    ['2001:db8:abcd:12:3456::1', '2001:db8:abcd::'],
    ['::ffff:198.51.100.9', '198.51.100.0'],
    ['::1', '::'],
    ['unknown', null],
    ['', null],
    ['999.1.1.1', null],
  ])('%s → %s', (ip, expected) => {
    expect(truncateIp(ip)).toBe(expected)
  })

  it('keeps the full address when asked (LOG_FULL_IP)', () => {
    expect(truncateIp('203.0.113.77', true)).toBe('203.0.113.77')
    expect(truncateIp('2001:db8::1', true)).toBe('2001:db8::1')
  })
})

describe('request log writer', () => {
  const entry = (requestId: string) => requestLogEntry({ requestId })

  /** A database stand-in that records the batches written (the rows travel as one JSON parameter), failing while `down` is set. */
  function fakeDb() {
    const state = { down: false, batches: [] as Array<Array<{ requestId: string; clientIp: string | null }>> }
    const dialect = new PgDialect()
    const execute = async (query: SQL) => {
      if (state.down) throw new Error('ECONNREFUSED')
      const rows = JSON.parse(String(dialect.sqlToQuery(query).params[0])) as Array<{ request_id: string; client_ip: string | null }>
      state.batches.push(rows.map((r) => ({ requestId: r.request_id, clientIp: r.client_ip })))
      return { rows: [{ inserted: rows.length }] }
    }
    // No connection of its own to COPY through: the rows take the JSON path (lib/datasets/storage/bulk-insert.ts).
    const tx = { execute }
    return { state, db: { execute, transaction: (fn: (t: typeof tx) => Promise<unknown>) => fn(tx) } as unknown as Db }
  }

  it('records without writing, then writes one batch on flush', async () => {
    const { state, db } = fakeDb()
    const writer = createRequestLogWriter({ db: async () => db, flushMs: 60_000 })
    writer.record(entry('a'))
    writer.record(entry('b'))
    expect(state.batches).toEqual([])
    await writer.flush()
    expect(state.batches.map((b) => b.map((r) => [r.requestId, r.clientIp]))).toEqual([
      [
        ['a', '203.0.113.0'],
        ['b', '203.0.113.0'],
      ],
    ])
    await writer.stop()
  })

  it('flushes on its own within the interval', async () => {
    const { state, db } = fakeDb()
    const writer = createRequestLogWriter({ db: async () => db, flushMs: 20 })
    writer.record(entry('timer'))
    await expect.poll(() => state.batches.length, { timeout: 2000 }).toBe(1)
    await writer.stop()
  })

  it('starts a second write beside a slow one once the buffer grows, never a third, and writes every entry once', async () => {
    const { state, db } = fakeDb()
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let active = 0
    let most = 0
    const slow = {
      transaction: async (fn: never) => {
        most = Math.max(most, ++active)
        await gate
        try {
          return await db.transaction(fn)
        } finally {
          active--
        }
      },
    } as unknown as Db
    const writer = createRequestLogWriter({ db: async () => slow, flushMs: 60_000 })
    for (let i = 0; i < 7000; i++) writer.record(entry(`c${i}`)) // 500 start a write, 5,000 more a second one
    await expect.poll(() => active).toBe(2)
    expect(writer.status().pending).toBe(7000)
    release()
    await writer.stop()
    expect(most).toBe(2)
    expect(state.batches.map((b) => b.length).sort((a, b) => a - b)).toEqual([500, 1500, 5000])
    const ids = state.batches.flat().map((r) => r.requestId)
    expect(new Set(ids).size).toBe(7000)
  })

  it('keeps entries while the database is down and writes them once it is back', async () => {
    const { state, db } = fakeDb()
    const writer = createRequestLogWriter({ db: async () => db, flushMs: 60_000, maxBuffered: 3 })
    state.down = true
    for (const id of ['1', '2', '3', '4']) writer.record(entry(id))
    await writer.flush()
    expect(writer.pending()).toBe(3) // the fourth was over the cap
    state.down = false
    await writer.stop()
    expect(state.batches.flat().map((r) => r.requestId)).toEqual(['1', '2', '3'])
    expect(writer.pending()).toBe(0)
  })
})

describe('ingest request checks', () => {
  const code = (fn: () => unknown) => {
    try {
      fn()
    } catch (error) {
      return (error as AppError).code
    }
    return 'ok'
  }

  it.each([
    [undefined, {}, 'not_configured'],
    ['s3cret', {}, 'unauthorized'],
    ['s3cret', { 'x-logpush-secret': 'wrong' }, 'forbidden'],
    ['s3cret', { 'x-logpush-secret': 's3cret' }, 'ok'],
    ['s3cret', { authorization: 'Bearer s3cret' }, 'ok'],
    ['s3cret', { authorization: 'Bearer s3cre' }, 'forbidden'],
  ])('secret %s with %j → %s', (secret, headers, expected) => {
    expect(code(() => checkIngestSecret(new Headers(headers as Record<string, string>), secret))).toBe(expected)
  })

  it('knows only the gateway datasets', () => {
    expect(ingestDataset('dns')).toBe('dns')
    expect(code(() => ingestDataset('requests'))).toBe('not_found')
    expect(code(() => ingestDataset('__proto__'))).toBe('not_found')
  })

  it('decodes gzip by its magic bytes and plain text otherwise', () => {
    const text = '{"a":1}\n{"a":2}\n'
    expect(decodeBatch(new Uint8Array(gzipSync(text)))).toBe(text)
    expect(decodeBatch(new TextEncoder().encode(text))).toBe(text)
    expect(code(() => decodeBatch(new Uint8Array([0x1f, 0x8b, 1, 2, 3])))).toBe('invalid_input')
  })
})

describe('ingest request body', () => {
  it('refuses a streamed body over the cap without a content-length', async () => {
    const { ingestRequest, MAX_COMPRESSED_BYTES } = await import('@/lib/ingest/logpush')
    const chunk = new Uint8Array(1024 * 1024)
    let sent = 0
    // An endless body: the test completes only if reading stops at the cap.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength
        controller.enqueue(chunk)
      },
    })
    const request = new Request('http://test/query/ingest/dns', { method: 'POST', body, headers: { 'x-logpush-secret': 's' }, duplex: 'half' } as RequestInit)
    await expect(ingestRequest('dns', request, { secret: 's' })).rejects.toMatchObject({
      code: 'payload_too_large',
      status: 413,
      message: `Batch is larger than 32 MiB (${MAX_COMPRESSED_BYTES} bytes).`,
    })
    expect(sent).toBeLessThanOrEqual(MAX_COMPRESSED_BYTES + 2 * chunk.byteLength) // stopped reading early
  })
})

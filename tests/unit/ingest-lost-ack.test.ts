import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { ingestBatch } from '@/lib/ingest/logpush'
import { startTcpProxy, type TcpProxy } from '@/test-support/tcp-proxy'
import { testDatabaseUrl } from '@/test-support/query-database'
import { ensureDatabase } from '@/scripts/ensure-database.mjs'

// Logpush ingest when the COMMIT's acknowledgement is lost (the database committed, the connection
// was reset before the answer came): the batch is answered as stored, with what is stored, instead
// of 503 "not stored"; a failure before the COMMIT is still "not stored"; a re-send stores nothing twice.

const url = testDatabaseUrl('lostack')

const batch = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ Datetime: `2026-03-02T10:00:${String(i % 60).padStart(2, '0')}Z`, Action: 'allow', HTTPHost: 'example.org', RequestID: randomUUID() }),
  ).join('\n')

describe.skipIf(!url)('ingest after a lost COMMIT acknowledgement', () => {
  let proxy: TcpProxy
  let direct: Database
  let proxied: Database
  const count = async (text: string) => {
    const hashes = text.split('\n').map((l) => l.trim())
    const { createHash } = await import('node:crypto')
    const list = `{${hashes.map((l) => createHash('sha256').update(l).digest('hex')).join(',')}}`
    const r = (await direct.db.execute(sql`SELECT count(*)::int AS n FROM gateway_http WHERE row_hash = ANY(${list}::text[])`)) as unknown as {
      rows: { n: number }[]
    }
    return r.rows[0].n
  }

  beforeAll(async () => {
    await ensureDatabase(url!)
    direct = await createDatabase({ DATABASE_URL: url, PGLITE_DIR: 'memory://' })
    await direct.migrate()
    const target = new URL(url!)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    target.hostname = '127.0.0.1'
    target.port = String(proxy.port)
    proxied = await createDatabase({ DATABASE_URL: target.toString(), PGLITE_DIR: 'memory://' })
  })
  afterAll(async () => {
    await proxy?.close()
    await proxied?.close()
    await direct?.close()
  })

  it('answers with what is stored when the COMMIT was applied but its answer lost', async () => {
    const text = batch(25)
    proxy.loseNextCommitAck()
    const result = await ingestBatch('http', text, { db: proxied.db, timeoutMs: 5000 })
    expect(result).toMatchObject({ lines: 25, inserted: 25, duplicates: 0 })
    expect(await count(text)).toBe(25)
    // The sender re-sends anyway: nothing twice.
    const again = await ingestBatch('http', text, { db: proxied.db, timeoutMs: 5000 })
    expect(again).toMatchObject({ lines: 25, inserted: 0, duplicates: 25 })
    expect(await count(text)).toBe(25)
  })

  it('counts only the rows this transaction wrote when part of the batch was stored before', async () => {
    const first = batch(10)
    await ingestBatch('http', first, { db: proxied.db, timeoutMs: 5000 })
    const text = `${first}\n${batch(5)}`
    proxy.loseNextCommitAck()
    const result = await ingestBatch('http', text, { db: proxied.db, timeoutMs: 5000 })
    expect(result).toMatchObject({ lines: 15, inserted: 5, duplicates: 10 })
  })

  it('still answers 503 "not stored" when the connection is lost before the COMMIT', async () => {
    const text = batch(5)
    proxy.cut()
    const failure = await ingestBatch('http', text, { db: proxied.db, timeoutMs: 2000 }).catch((e: unknown) => e)
    proxy.restore()
    expect(failure).toBeInstanceOf(AppError)
    expect((failure as AppError).status).toBe(503)
    expect((failure as AppError).message).toContain('the batch was not stored')
    expect(await count(text)).toBe(0)
  })

  it('answers 503 "unknown" when the database stops answering once the COMMIT was sent', async () => {
    const text = batch(5)
    // The COMMIT is swallowed by a hang: the database never sees it, and the check cannot reach it.
    proxy.hangAtNextCommit()
    const t0 = Date.now()
    const failure = await ingestBatch('http', text, { db: proxied.db, timeoutMs: 1500 }).catch((e: unknown) => e)
    const ms = Date.now() - t0
    proxy.restore()
    expect(failure).toBeInstanceOf(AppError)
    expect((failure as AppError).status).toBe(503)
    expect((failure as AppError).message).toContain('whether it was stored is unknown')
    expect((failure as AppError).details).toMatchObject({ retryAfterSeconds: 30 })
    expect(ms).toBeLessThan(1500 + 3000 + 1000)
  })
})

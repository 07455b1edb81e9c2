import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from '@/lib/db/client'
import { createSpool } from '@/lib/query/request-log-spool'
import { createRequestLogWriter, spoolDirOf } from '@/lib/query/request-log-writer'
import { requestLogEntry } from '../helpers/request-log-entry'

// The request log's spool and the writer's behaviour while the database is down or hangs: backoff,
// overflow into the spool, the shutdown deadline, and the replay (once per segment) when it is back.

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spool-test-'))
  dirs.push(dir)
  return dir
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

const entry = (requestId: string) => requestLogEntry({ requestId, time: new Date('2026-01-02T03:04:05Z') })

/** A database stand-in: `down` fails writes at once, `hang` never answers; `written` holds request ids. */
function fakeDb() {
  const state = { down: false, hang: false, attempts: 0, written: [] as string[], times: [] as unknown[] }
  const write = async (_db: Db, rows: Array<{ requestId: string; time: unknown }>) => {
    state.attempts++
    if (state.hang) return new Promise<void>(() => {})
    if (state.down) throw Object.assign(new Error('insert into "request_log" ... '.repeat(5000)), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) })
    state.written.push(...rows.map((r) => r.requestId))
    state.times.push(...rows.map((r) => r.time))
  }
  return { state, write: write as never, db: async () => ({}) as Db }
}

describe('request log spool', () => {
  it('appends fsync\'d segments and hands each to one claimant, then deletes it', async () => {
    const dir = tempDir()
    const spool = createSpool(dir, 1024 * 1024)
    expect(await spool.append([{ requestId: 'a' }, { requestId: 'b' }])).toBe(0)
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/\.open\.ndjson$/)])
    const segment = (await spool.claim())! // seals the open segment first
    expect(segment.rows).toEqual([{ requestId: 'a' }, { requestId: 'b' }])
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/\.replaying\.ndjson$/)])
    // Held by another live process (the parent's pid): nobody else may take it.
    const [file] = readdirSync(dir)
    const held = file.replace(/\.\d+\.([0-9a-f]+)\.replaying\./, `.${process.ppid}.$1.replaying.`)
    renameSync(path.join(dir, file), path.join(dir, held))
    expect(await createSpool(dir, 1 << 20).claim()).toBeNull()
    renameSync(path.join(dir, held), path.join(dir, file))
    await segment.done()
    expect(readdirSync(dir)).toEqual([])
    expect(spool.bytes()).toBe(0)
  })

  it('keeps to its byte budget and reports what it dropped', async () => {
    const spool = createSpool(tempDir(), 100)
    const rows = Array.from({ length: 10 }, (_, i) => ({ requestId: `r${i}` })) // 18 bytes a line
    expect(await spool.append(rows)).toBe(5)
    expect(spool.bytes()).toBe(95)
    expect(spool.appendSync(rows)).toBe(10)
  })

  it('gives back a segment whose write failed, and lets a later process take over one left by a dead one', async () => {
    const dir = tempDir()
    const first = createSpool(dir, 1 << 20)
    await first.append([{ requestId: 'x' }])
    const segment = (await first.claim())!
    await segment.release()
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/\.ready\.ndjson$/)])
    // A crash mid-replay leaves `replaying` held by a pid that no longer exists; a torn last line too.
    const [file] = readdirSync(dir)
    const orphan = file.replace(/\.\d+\.([0-9a-f]+)\.ready\./, '.999999999.$1.replaying.')
    renameSync(path.join(dir, file), path.join(dir, orphan))
    writeFileSync(path.join(dir, orphan), '{"requestId":"x"}\n{"requestId":"y"}\n{"requestId":"z', { flag: 'w' })
    const later = createSpool(dir, 1 << 20)
    const taken = (await later.claim())!
    expect(taken.rows).toEqual([{ requestId: 'x' }, { requestId: 'y' }])
    expect(taken.unreadable).toBe(1)
  })

  it('lives beside the PGlite data unless told otherwise, and nowhere for an in-memory database', () => {
    expect(spoolDirOf({ PGLITE_DIR: '/srv/data/pglite', REQUEST_LOG_SPOOL_DIR: undefined })).toBe('/srv/data/request-log-spool')
    expect(spoolDirOf({ PGLITE_DIR: 'memory://', REQUEST_LOG_SPOOL_DIR: undefined })).toBeNull()
    expect(spoolDirOf({ PGLITE_DIR: 'memory://', REQUEST_LOG_SPOOL_DIR: '/var/spool/x' })).toBe('/var/spool/x')
  })
})

describe('request log writer during an outage', () => {
  it('backs off exponentially instead of retrying on every request', async () => {
    const { state, write, db } = fakeDb()
    const writer = createRequestLogWriter({ db, write, flushMs: 60_000, backoffMinMs: 200, backoffMaxMs: 10_000 })
    state.down = true
    writer.record(entry('1'))
    await writer.flush()
    expect(state.attempts).toBe(1)
    for (let i = 0; i < 1000; i++) writer.record(entry(`n${i}`)) // passes BATCH_ROWS twice
    await writer.flush()
    expect(state.attempts).toBe(1) // still backing off: no write attempted
    const status = writer.status()
    expect(status.failures).toBe(1)
    expect(status.retryAt! - Date.now()).toBeGreaterThan(100)
    await new Promise((r) => setTimeout(r, 300))
    await writer.flush()
    expect(state.attempts).toBe(2)
    expect(writer.status().retryAt! - Date.now()).toBeGreaterThan(250) // doubled
    state.down = false
    await writer.stop()
    expect(state.written).toHaveLength(1001)
  })

  it('spills to the spool when the buffer is full and writes the spool back once the database answers', async () => {
    const { state, write, db } = fakeDb()
    const spool = createSpool(tempDir(), 1 << 20)
    const writer = createRequestLogWriter({ db, write, spool, flushMs: 60_000, maxBuffered: 10, backoffMinMs: 1, backoffMaxMs: 1 })
    state.down = true
    for (let i = 0; i < 35; i++) writer.record(entry(`e${i}`))
    await writer.flush()
    expect(writer.pending()).toBe(5)
    expect(spool.bytes()).toBeGreaterThan(0)
    state.down = false
    await new Promise((r) => setTimeout(r, 5))
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5))
      await writer.flush() // the buffer first, then one spooled segment per flush
    }
    expect(new Set(state.written).size).toBe(35)
    expect(state.written).toHaveLength(35)
    expect(spool.bytes()).toBe(0)
    expect(state.times.every((t) => t instanceof Date)).toBe(true) // dates survive the spool
    await writer.stop()
  })

  it('stops within its deadline while the database hangs, spooling what was not acknowledged', async () => {
    const { state, write, db } = fakeDb()
    const dir = tempDir()
    const writer = createRequestLogWriter({ db, write, spool: createSpool(dir, 1 << 20), flushMs: 60_000, writeTimeoutMs: 60_000 })
    state.hang = true
    for (let i = 0; i < 20; i++) writer.record(entry(`h${i}`))
    void writer.flush() // in flight, never answered
    writer.record(entry('late'))
    const t0 = Date.now()
    await writer.stop(300)
    expect(Date.now() - t0).toBeLessThan(2000)
    // The next start replays them all, once.
    state.hang = false
    const next = createRequestLogWriter({ db, write, spool: createSpool(dir, 1 << 20), flushMs: 60_000 })
    await next.flush()
    expect(state.written.sort()).toEqual([...Array.from({ length: 20 }, (_, i) => `h${i}`), 'late'].sort())
    await next.flush()
    expect(state.written).toHaveLength(21)
    await next.stop()
  })

  it('logs failures in one short line', async () => {
    const { state, write, db } = fakeDb()
    const lines: string[] = []
    const original = console.error
    console.error = (line: string) => lines.push(line)
    try {
      const writer = createRequestLogWriter({ db, write, flushMs: 60_000 })
      state.down = true
      writer.record(entry('x'))
      await writer.flush()
      writer.abandon()
    } finally {
      console.error = original
    }
    const failure = lines.find((l) => l.includes('write failed'))!
    expect(failure.length).toBeLessThan(500)
    expect(JSON.parse(failure).error).toBe('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1')
  })
})

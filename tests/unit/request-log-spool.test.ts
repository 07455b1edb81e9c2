import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { Db } from '@/lib/db/client'
import { createDurableRequestLog } from '@/lib/request-log/shipper'
import { createSpool } from '@/lib/request-log/spool'
import { instanceName, orphanSegments } from '@/lib/request-log/instance'
import { lockDirectory } from '@/lib/db/directory-lock'
import { createRequestLogWriter, spoolDirOf } from '@/lib/request-log/writer'
import { requestLogEntry } from '../../test-support/request-log-entry'

// The request log's journal (append first, ship later) and its shipper: the group commit, sealed
// segments handed to one claimant and deleted once stored, the budget and its persisted drop count,
// the shipper during and after an outage (while traffic flows), shutdown and an exit that cannot
// wait. And the memory writer used where no directory is writable: backoff, short failure lines.

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'spool-test-'))
  dirs.push(dir)
  return dir
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

const entry = (requestId: string) => requestLogEntry({ requestId, time: new Date('2026-01-02T03:04:05Z') })
const segments = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.ndjson'))

/** A database stand-in: `down` fails writes at once, `hang` never answers; `written` holds request ids. */
function fakeDb() {
  const state = { down: false, hang: false, attempts: 0, written: [] as string[], times: [] as unknown[] }
  const write = async (_db: Db, rows: Array<{ requestId: string; time: unknown }>) => {
    state.attempts++
    if (state.hang) return new Promise<void>(() => {})
    if (state.down)
      throw Object.assign(new Error('insert into "request_log" ... '.repeat(5000)), {
        cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      })
    state.written.push(...rows.map((r) => r.requestId))
    state.times.push(...rows.map((r) => r.time))
  }
  return { state, write: write as never, db: async () => ({}) as Db }
}

describe('request log journal', () => {
  it('queues appends without touching the disk, makes them durable in one group commit, and hands a sealed segment to one claimant', async () => {
    const dir = tempDir()
    const spool = createSpool(dir, 1 << 20, { commitMs: 60_000 })
    expect(spool.append({ requestId: 'a' })).toBe(true)
    expect(spool.append({ requestId: 'b' })).toBe(true)
    expect(segments(dir)).toEqual([]) // nothing on disk before the commit
    expect(spool.status().uncommitted).toBe(2)
    await spool.commit()
    expect(segments(dir)).toEqual([expect.stringMatching(/\.open\.ndjson$/)])
    expect(readFileSync(path.join(dir, segments(dir)[0]), 'utf8')).toBe('{"requestId":"a"}\n{"requestId":"b"}\n')
    // An open segment is not shipped; sealed, it is.
    expect(await spool.claim(1 << 20)).toBeNull()
    await spool.seal()
    const claim = (await spool.claim(1 << 20))!
    expect(claim.rows).toEqual([{ requestId: 'a' }, { requestId: 'b' }])
    expect(segments(dir)).toEqual([expect.stringMatching(/\.replaying\.ndjson$/)])
    // Held by another live process (the parent's pid): nobody else may take it.
    const [file] = segments(dir)
    const held = file.replace(/\.\d+\.([0-9a-f]+)\.replaying\./, `.${process.ppid}.$1.replaying.`)
    renameSync(path.join(dir, file), path.join(dir, held))
    expect(await createSpool(dir, 1 << 20).claim(1 << 20)).toBeNull()
    renameSync(path.join(dir, held), path.join(dir, file))
    await claim.done()
    expect(segments(dir)).toEqual([])
    expect(spool.status()).toMatchObject({ bytes: 0, segments: 0, oldestEntryAt: null })
    await spool.close()
  })

  it('commits on its own within the interval, and at once past COMMIT_ENTRIES', async () => {
    const dir = tempDir()
    const timed = createSpool(dir, 1 << 20, { commitMs: 20 })
    timed.append({ requestId: 't' })
    await expect.poll(() => timed.status().uncommitted, { timeout: 2000 }).toBe(0)
    expect(segments(dir)).toHaveLength(1)
    await timed.close()
    const counted = createSpool(tempDir(), 1 << 20, { commitMs: 60_000, commitEntries: 10 })
    for (let i = 0; i < 10; i++) counted.append({ requestId: `c${i}` })
    await expect.poll(() => counted.status().uncommitted, { timeout: 2000 }).toBe(0)
    await counted.close()
  })

  it('seals a segment by size or age, so the shipper always has bounded pieces', async () => {
    const dir = tempDir()
    const spool = createSpool(dir, 1 << 20, { commitMs: 60_000, segmentEntries: 3, segmentMs: 60_000 })
    for (let i = 0; i < 7; i++) spool.append({ requestId: `s${i}` })
    await spool.commit() // 7 lines in one commit, then sealed: 3 is the bound after which it rolls
    for (let i = 7; i < 9; i++) spool.append({ requestId: `s${i}` })
    await spool.commit()
    expect(
      segments(dir)
        .map((f) => f.split('.').at(-2))
        .sort(),
    ).toEqual(['open', 'ready'])
    await spool.close()
  })

  it('keeps to its byte budget, and the count of dropped entries survives a restart', async () => {
    const dir = tempDir()
    const spool = createSpool(dir, 100, { commitMs: 60_000 })
    const kept = Array.from({ length: 10 }, (_, i) => spool.append({ requestId: `r${i}` })) // 18 bytes a line
    expect(kept.filter(Boolean)).toHaveLength(5)
    await spool.commit()
    expect(spool.status()).toMatchObject({ bytes: 95, dropped: 5, budgetBytes: 100 })
    const since = spool.status().droppedSince
    await spool.close()
    const again = createSpool(dir, 100)
    expect(again.status()).toMatchObject({ dropped: 5, droppedSince: since, bytes: 95, segments: 1 })
    expect(again.append({ requestId: 'r10' })).toBe(false)
    expect(again.status().dropped).toBe(6)
    await again.close()
  })

  it('gives back a segment whose write failed, and lets a later process take over one left by a dead one', async () => {
    const dir = tempDir()
    const first = createSpool(dir, 1 << 20)
    first.append({ requestId: 'x' })
    await first.seal()
    const claim = (await first.claim(1 << 20))!
    await claim.release()
    expect(segments(dir)).toEqual([expect.stringMatching(/\.ready\.ndjson$/)])
    // A crash mid-ship leaves `replaying` held by a pid that no longer exists; a torn last line too.
    const [file] = segments(dir)
    const orphan = file.replace(/\.\d+\.([0-9a-f]+)\.ready\./, '.999999999.$1.replaying.')
    renameSync(path.join(dir, file), path.join(dir, orphan))
    writeFileSync(path.join(dir, orphan), '{"requestId":"x"}\n{"requestId":"y"}\n{"requestId":"z', { flag: 'w' })
    const later = createSpool(dir, 1 << 20)
    const taken = (await later.claim(1 << 20))!
    expect(taken.rows).toEqual([{ requestId: 'x' }, { requestId: 'y' }])
    expect(taken.segments[0].unreadable).toBe(1)
    await first.close()
    await later.close()
  })

  it('says when it last dropped an entry (kept across restarts) and counts lines waiting for the group commit in the oldest entry', async () => {
    const dir = tempDir()
    const spool = createSpool(dir, 40, { commitMs: 60_000 })
    expect(spool.status()).toMatchObject({ lastDroppedAt: null, oldestEntryAt: null })
    const t0 = Date.now()
    spool.append({ requestId: 'r0' })
    expect(spool.status().oldestEntryAt).toBeGreaterThanOrEqual(t0)
    spool.append({ requestId: 'r1' })
    expect(spool.append({ requestId: 'r2' })).toBe(false)
    const droppedAt = spool.status().lastDroppedAt!
    expect(droppedAt).toBeGreaterThanOrEqual(t0)
    await spool.close()
    const again = createSpool(dir, 40)
    expect(again.status()).toMatchObject({ lastDroppedAt: droppedAt, dropped: 1 })
    // Everything stored: nothing waits, the oldest entry is none.
    const claim = (await again.claim(1 << 20))!
    await claim.done()
    expect(again.status()).toMatchObject({ bytes: 0, segments: 0, oldestEntryAt: null })
    await again.close()
  })

  it('adopts the segments a gone instance left elsewhere: moved in, counted, claimed, shipped once', async () => {
    const root = tempDir()
    const gone = createSpool(path.join(root, 'host-3001'), 1 << 20)
    gone.append({ requestId: 'left-1' })
    gone.append({ requestId: 'left-2' })
    await gone.close()
    // An earlier version's segment in the journal directory itself, its writer dead.
    writeFileSync(path.join(root, 'lqz0000-0a0b0c0d.999999999.deadbeef.open.ndjson'), '{"requestId":"legacy"}\n')
    const own = path.join(root, 'host-3000')
    const spool = createSpool(own, 1 << 20, { orphans: () => orphanSegments(root, own) })
    expect(spool.status()).toMatchObject({ segments: 2 })
    expect(segments(path.join(root, 'host-3001'))).toEqual([])
    const claim = (await spool.claim(1 << 20))!
    expect(claim.rows.map((r) => (r as { requestId: string }).requestId).sort()).toEqual(['left-1', 'left-2', 'legacy'])
    await claim.done()
    expect(spool.status()).toMatchObject({ bytes: 0, segments: 0 })
    await spool.close()
  })

  it('leaves alone the directory of an instance whose holder is alive', async () => {
    const root = tempDir()
    const live = path.join(root, 'host-3001')
    const release = lockDirectory(live, 'journal') // this process holds it
    const other = createSpool(live, 1 << 20)
    other.append({ requestId: 'held' })
    await other.close()
    expect(orphanSegments(root, path.join(root, 'host-3000'))).toEqual([])
    release()
    expect(orphanSegments(root, path.join(root, 'host-3000'))).toHaveLength(1)
  })

  it('names an instance by host name and port unless REQUEST_LOG_INSTANCE says otherwise', () => {
    expect(instanceName({ PORT: 3000, REQUEST_LOG_INSTANCE: undefined }, 'web-1')).toBe('web-1-3000')
    expect(instanceName({ PORT: 3000, REQUEST_LOG_INSTANCE: undefined }, 'a b/c')).toBe('a_b_c-3000')
    expect(instanceName({ PORT: 3000, REQUEST_LOG_INSTANCE: 'blue' }, 'web-1')).toBe('blue')
  })

  it('lives beside the PGlite data unless told otherwise, and nowhere for an in-memory database', () => {
    expect(spoolDirOf({ PGLITE_DIR: '/srv/data/pglite', REQUEST_LOG_SPOOL_DIR: undefined })).toBe('/srv/data/request-log-spool')
    expect(spoolDirOf({ PGLITE_DIR: 'memory://', REQUEST_LOG_SPOOL_DIR: undefined })).toBeNull()
    expect(spoolDirOf({ PGLITE_DIR: 'memory://', REQUEST_LOG_SPOOL_DIR: '/var/spool/x' })).toBe('/var/spool/x')
  })
})

describe('request log shipper', () => {
  const journal = (dir: string) => createSpool(dir, 1 << 22, { commitMs: 10, segmentMs: 20 })

  it('ships continuously while traffic flows, keeps entries on disk during an outage, and catches up within a second of the restore', async () => {
    const { state, write, db } = fakeDb()
    const dir = tempDir()
    const log = createDurableRequestLog({ spool: journal(dir), db, write, shipMs: 20, backoffMinMs: 20, backoffMaxMs: 200 })
    let n = 0
    const traffic = setInterval(() => {
      for (let i = 0; i < 5; i++) log.record(entry(`t${n++}`))
    }, 5)
    try {
      await expect.poll(() => state.written.length, { timeout: 3000 }).toBeGreaterThan(20) // shipped during traffic
      state.down = true
      await sleep(300)
      const during = state.written.length
      await sleep(300)
      expect(state.written.length).toBe(during) // nothing stored while down…
      expect(log.status()).toMatchObject({ mode: 'journal', spool: { state: 'on' } })
      expect(log.status().spooledBytes).toBeGreaterThan(0) // …it waits on disk
      expect(log.status().shipper.lagMs).toBeGreaterThan(100)
      expect(log.status().failures).toBeGreaterThan(0)
      state.down = false
      const restored = Date.now()
      const target = n
      await expect.poll(() => new Set(state.written).size >= target, { timeout: 3000, interval: 10 }).toBe(true) // while traffic continues
      expect(Date.now() - restored).toBeLessThan(1500)
    } finally {
      clearInterval(traffic)
    }
    await log.stop()
    expect(new Set(state.written).size).toBe(n)
    expect(state.written).toHaveLength(n) // each once
    expect(state.times.every((t) => t instanceof Date)).toBe(true) // dates survive the journal
    expect(segments(dir)).toEqual([])
  })

  it('writes each entry as one JSON line of its row (the client network, not the address), and ships a line of that format as the row', async () => {
    const dir = tempDir()
    const stored: unknown[] = []
    const write = (async (_db: Db, rows: unknown[]) => void stored.push(...rows)) as never
    const log = createDurableRequestLog({ spool: journal(dir), db: async () => ({}) as Db, write, shipMs: 60_000 })
    log.record(requestLogEntry({ requestId: 'new', time: new Date('2026-01-02T03:04:05Z'), clientIp: '203.0.113.77', userAgent: 'u'.repeat(1200) }))
    log.abandon() // committed, not shipped
    const [line] = readFileSync(path.join(dir, segments(dir)[0]), 'utf8')
      .trim()
      .split('\n')
    const row = {
      time: '2026-01-02T03:04:05.000Z',
      requestId: 'new',
      method: 'GET',
      route: '/api/health',
      query: '',
      status: 200,
      durationMs: 1,
      clientIp: '203.0.113.0',
      country: null,
      userAgent: 'u'.repeat(1000),
      referrer: null,
      apiKeyPresent: false,
      rateLimited: false,
      mcpTool: null,
    }
    expect(JSON.parse(line)).toEqual(row)
    // A journal left by an earlier start holds lines of the same format: shipped as rows, the time a Date again.
    writeFileSync(path.join(dir, `${Date.now().toString(36)}-00aa.999999999.00bb.ready.ndjson`), JSON.stringify({ ...row, requestId: 'old' }) + '\n')
    const next = createDurableRequestLog({ spool: journal(dir), db: async () => ({}) as Db, write, shipMs: 60_000 })
    await next.flush()
    await next.stop()
    const shipped = [...stored].sort((a, b) => String((a as { requestId: string }).requestId).localeCompare((b as { requestId: string }).requestId))
    expect(shipped).toEqual([
      { ...row, requestId: 'new', time: new Date(row.time) },
      { ...row, requestId: 'old', time: new Date(row.time) },
    ])
    expect(segments(dir)).toEqual([])
  })

  it('stops within its deadline while the database hangs, leaving every entry on disk; the next start ships them once', async () => {
    const { state, write, db } = fakeDb()
    const dir = tempDir()
    const log = createDurableRequestLog({ spool: journal(dir), db, write, shipMs: 20, writeTimeoutMs: 60_000 })
    state.hang = true
    for (let i = 0; i < 20; i++) log.record(entry(`h${i}`))
    await expect.poll(() => state.attempts, { timeout: 2000 }).toBeGreaterThan(0) // a write in flight, never answered
    log.record(entry('late'))
    const t0 = Date.now()
    await log.stop(300)
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(segments(dir).length).toBeGreaterThan(0)
    state.hang = false
    const written = state.written.length
    const next = createDurableRequestLog({ spool: journal(dir), db, write, shipMs: 20 })
    await next.flush()
    expect(state.written.slice(written).sort()).toEqual([...Array.from({ length: 20 }, (_, i) => `h${i}`), 'late'].sort())
    await next.stop()
    expect(segments(dir)).toEqual([])
  })

  it('an exit that cannot wait commits synchronously; a crash keeps what was committed', async () => {
    const { state, write, db } = fakeDb()
    const dir = tempDir()
    state.down = true
    const urgent = createDurableRequestLog({ spool: createSpool(dir, 1 << 20, { commitMs: 60_000 }), db, write })
    urgent.record(entry('u1'))
    urgent.record(entry('u2'))
    urgent.abandon()
    // A crash: the process is gone without close(); the committed lines are there.
    const crashed = createSpool(dir, 1 << 20, { commitMs: 60_000 })
    crashed.append({ ...entry('k1'), time: new Date('2026-01-02T03:04:05Z') })
    await crashed.commit()
    state.down = false
    const next = createDurableRequestLog({ spool: journal(dir), db, write })
    // The crashed journal's `open` segment names this pid with another instance: claimable.
    await next.flush()
    expect(state.written.sort()).toEqual(['k1', 'u1', 'u2'])
    await next.stop()
  })
})

describe('request log memory writer (no journal directory)', () => {
  it('backs off exponentially, capped, instead of retrying on every request', async () => {
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
    expect(status).toMatchObject({ mode: 'memory', spool: { state: 'off' } })
    expect(status.retryAt! - Date.now()).toBeGreaterThan(100)
    await sleep(300)
    await writer.flush()
    expect(state.attempts).toBe(2)
    expect(writer.status().retryAt! - Date.now()).toBeGreaterThan(250) // doubled
    state.down = false
    await writer.stop()
    expect(state.written).toHaveLength(1001)
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
      const log = createDurableRequestLog({ spool: createSpool(tempDir(), 1 << 20), db, write })
      log.record(entry('y'))
      await log.flush()
      log.abandon()
    } finally {
      console.error = original
    }
    const failures = lines.filter((l) => l.includes('failed'))
    expect(failures).toHaveLength(2)
    for (const failure of failures) {
      expect(failure.length).toBeLessThan(500)
      expect(JSON.parse(failure).error).toBe('ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1')
    }
  })
})

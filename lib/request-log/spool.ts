import 'server-only'
import { randomBytes } from 'node:crypto'
import { closeSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { open, readFile, rename, unlink, writeFile, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { ensurePrivateDirectory } from '@/lib/db/private-directory'

// The request log's local journal: every entry is appended here first and shipped to the database
// later (lib/request-log/shipper.ts), the design of a database's write-ahead log or a log
// shipper's disk buffer. Docs: docs/request-log.md.
//
// - append() is O(1) and synchronous on the request path: it serialises the entry to one NDJSON
//   line and queues it in memory. Nothing touches the disk there.
// - Group commit: every COMMIT_MS, or as soon as COMMIT_ENTRIES lines wait, the queued lines are
//   written to the open segment in one write and made durable with one fdatasync (off the event
//   loop, in libuv's thread pool). An entry is on disk at most COMMIT_MS plus one fdatasync after
//   it was appended: that is the window a crash (kill -9, power loss) can lose.
// - Segments: the open segment is sealed (renamed `ready`) once it holds SEGMENT_ENTRIES lines or
//   is SEGMENT_MS old, so the shipper always has recent, bounded pieces to take. Files are named
//   `<first-entry ms, base 36>-<random>.<pid>.<instance>.<state>.ndjson`, pid and instance naming
//   the process that holds them:
//     open       the holder is appending to it
//     ready      sealed, waiting to be stored (any process may claim it)
//     replaying  claimed by one shipper (an atomic rename: two processes never ship the same one)
//   A segment left `open` or `replaying` by a process that is gone (crash, kill) is claimable
//   again, so nothing is lost; shipping it twice relies on the store being idempotent by
//   (request_id, time) (lib/request-log/store.ts).
// - One live process per directory: the server gives each instance a directory of its own
//   (lib/request-log/writer.ts, locked like the PGlite directory), so what this process keeps in
//   memory about the directory (bytes, segments, the oldest entry, the drop count) is what is on
//   disk. Segments a gone instance left in a sibling directory (or, from earlier versions, in the
//   parent directory itself) are adopted: moved here by rename and shipped with this instance's.
// - The budget (maxBytes) counts segment bytes on disk plus queued lines. An entry that does not
//   fit is dropped and counted; the count is kept in `state.json` beside the segments, so it
//   survives restarts and says since when it counts. A write that fails (a full disk) is cut back
//   to the last committed length, so the lines counted as dropped are exactly the ones not on disk.

/** Group commit: at most this long between an append and its fdatasync. */
export const COMMIT_MS = 50
/** … or as soon as this many lines wait. */
export const COMMIT_ENTRIES = 1000
/** A segment is sealed for the shipper at this many lines … */
export const SEGMENT_ENTRIES = 5000
/** … or this age (ms). */
export const SEGMENT_MS = 1000

export interface SpoolSegment {
  name: string
  /** Each line as JSON.parse gives it back. */
  rows: unknown[]
  /** Lines that could not be parsed (a torn last line after a crash), skipped. */
  unreadable: number
  bytes: number
}

export interface SpoolClaim {
  segments: SpoolSegment[]
  rows: unknown[]
  /** The rows are stored: delete the segments. */
  done(): Promise<void>
  /** The write failed: give the segments back for a later attempt. */
  release(): Promise<void>
}

/** How often claim() looks for segments of gone instances to adopt. */
export const ADOPT_MS = 30_000

export interface SpoolStatus {
  dir: string
  budgetBytes: number
  /** Bytes on disk plus lines waiting for the next group commit. */
  bytes: number
  segments: number
  /** Epoch ms of the oldest entry not yet stored (the oldest segment's name, or the first line waiting for the group commit), or null. */
  oldestEntryAt: number | null
  /** Entries dropped (budget spent, write failed) since `droppedSince`; persisted across restarts. */
  dropped: number
  droppedSince: string
  /** Epoch ms of the last entry dropped, or null; persisted across restarts. */
  lastDroppedAt: number | null
  /** Lines waiting for the next group commit. */
  uncommitted: number
}

export interface SpoolOptions {
  commitMs?: number
  commitEntries?: number
  segmentEntries?: number
  segmentMs?: number
  /** Called after each group commit (the shipper may want to look). */
  onCommit?: () => void
  /**
   * Segments gone instances left elsewhere are moved into `dir`: returns the paths of those files
   * (lib/request-log/writer.ts looks in the sibling instance directories). Called at creation and
   * every ADOPT_MS.
   */
  orphans?: () => string[]
}

export interface Spool {
  dir: string
  /** Queues one entry for the next group commit. O(1), no disk access. False when over budget (dropped and counted). */
  append(entry: object): boolean
  /** Writes and fdatasyncs the queued lines now (the group commit); resolves once they are durable. */
  commit(): Promise<void>
  /** The same, synchronously, for an exit that cannot wait. */
  commitSync(): void
  /** Commits, then seals the open segment so the shipper can take it. */
  seal(): Promise<void>
  /** Claims sealed segments (this process's or a dead one's), oldest first, up to about `maxBytes`. */
  claim(maxBytes: number): Promise<SpoolClaim | null>
  /** True when some segment is sealed and waiting (cheap: no disk access). */
  hasWaiting(): boolean
  status(): SpoolStatus
  /** Commits, seals and stops the timer. */
  close(): Promise<void>
}

export const SEGMENT_NAME = /^([0-9a-z]+)-([0-9a-f]+)\.(\d+)\.([0-9a-f]+)\.(open|ready|replaying)\.ndjson$/
const STATE_FILE = 'state.json'
/** Request-log entries hold client addresses and paths: this user's only. */
const FILE_MODE = 0o600

export function processIsGone(pid: number): boolean {
  if (pid === process.pid) return true // same pid, other instance: the earlier process is gone (containers reuse pids)
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** Parses NDJSON; a line that does not parse (a torn tail) is counted, not fatal. */
export function parseLines(text: string): { rows: unknown[]; unreadable: number } {
  const rows: unknown[] = []
  let unreadable = 0
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      rows.push(JSON.parse(line))
    } catch {
      unreadable++
    }
  }
  return { rows, unreadable }
}

export function createSpool(dir: string, maxBytes: number, opts: SpoolOptions = {}): Spool {
  const commitMs = opts.commitMs ?? COMMIT_MS
  const commitEntries = opts.commitEntries ?? COMMIT_ENTRIES
  const segmentEntries = opts.segmentEntries ?? SEGMENT_ENTRIES
  const segmentMs = opts.segmentMs ?? SEGMENT_MS
  // 0700 whatever the umask, refused when others can write it; every file in it is created 0600.
  ensurePrivateDirectory(dir)
  // A directory chosen at run time: the build must not trace it (it would trace the whole project).
  const at = (file: string) => path.join(/*turbopackIgnore: true*/ dir, file)
  const instance = randomBytes(4).toString('hex')
  const nameOf = (id: string, state: 'open' | 'ready' | 'replaying') => `${id}.${process.pid}.${instance}.${state}.ndjson`
  const timeOf = (id: string) => parseInt(id.split('-')[0], 36)

  // What is on disk: segment name (without state) → bytes and first-entry time. Kept in memory, so
  // status() and the budget check never list the directory.
  const onDisk = new Map<string, { bytes: number; at: number }>()
  let diskBytes = 0
  const count = (file: string) => {
    const m = SEGMENT_NAME.exec(path.basename(file))
    if (!m || onDisk.has(`${m[1]}-${m[2]}`)) return
    let size: number
    try {
      size = statSync(file).size
    } catch {
      return // claimed or adopted meanwhile by another process
    }
    onDisk.set(`${m[1]}-${m[2]}`, { bytes: size, at: parseInt(m[1], 36) })
    diskBytes += size
  }
  /** Moves what gone instances left into this directory (a rename: a file another process took first is skipped). */
  const adopt = () => {
    let moved = 0
    for (const file of opts.orphans?.() ?? []) {
      const target = at(path.basename(file))
      try {
        renameSync(file, target)
      } catch {
        continue
      }
      count(target)
      moved++
    }
    return moved
  }
  let lastAdopt = Date.now()
  adopt()
  for (const file of readdirSync(dir)) count(at(file))
  let waiting = onDisk.size > 0

  // Dropped entries, persisted: a restart does not reset the count.
  let persisted: { dropped: number; since: string; lastDroppedAt: number | null } = { dropped: 0, since: new Date().toISOString(), lastDroppedAt: null }
  try {
    const saved = JSON.parse(readFileSync(at(STATE_FILE), 'utf8')) as Partial<typeof persisted>
    if (typeof saved.dropped === 'number' && typeof saved.since === 'string')
      persisted = { dropped: saved.dropped, since: saved.since, lastDroppedAt: typeof saved.lastDroppedAt === 'number' ? saved.lastDroppedAt : null }
  } catch {
    writeFileSync(at(STATE_FILE), JSON.stringify(persisted), { mode: FILE_MODE })
  }
  let stateDirty = false

  // The queue of the next group commit.
  let queued: string[] = []
  let queuedBytes = 0
  /** When the first of the queued lines was appended (the shipper's lag counts it). */
  let queuedSince: number | null = null
  // The open segment.
  let openId: string | null = null
  let handle: FileHandle | null = null
  let openBytes = 0
  let openLines = 0
  let openedAt = 0
  let closed = false
  /** Segments this instance has claimed and not yet deleted or given back. */
  const claimedNow = new Set<string>()

  const drop = (n: number) => {
    if (n <= 0) return
    persisted.dropped += n
    persisted.lastDroppedAt = Date.now()
    stateDirty = true
  }

  async function saveState() {
    if (!stateDirty) return
    stateDirty = false
    const tmp = at(`${STATE_FILE}.${instance}.tmp`)
    await writeFile(tmp, JSON.stringify(persisted), { mode: FILE_MODE })
    await rename(tmp, at(STATE_FILE))
  }

  function newId() {
    return `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
  }

  async function sealOpen() {
    if (!handle || !openId) return
    const id = openId
    await handle.close()
    handle = null
    openId = null
    await rename(at(nameOf(id, 'open')), at(nameOf(id, 'ready')))
    waiting = true
  }

  /** One group commit: one write and one fdatasync for everything queued. */
  async function commitOnce() {
    if (queued.length > 0) {
      const lines = queued
      const bytes = queuedBytes
      queued = []
      queuedBytes = 0
      queuedSince = null
      if (!handle) {
        openId = newId()
        handle = await open(at(nameOf(openId, 'open')), 'a', FILE_MODE)
        openBytes = 0
        openLines = 0
        openedAt = Date.now()
        onDisk.set(openId, { bytes: 0, at: timeOf(openId) })
      }
      try {
        await handle.write(lines.join(''))
        await handle.datasync()
        openBytes += bytes
        openLines += lines.length
        diskBytes += bytes
        onDisk.get(openId!)!.bytes = openBytes
      } catch {
        // A full disk or an I/O error: cut the segment back to what was committed, so what is
        // counted as dropped is exactly what is not on disk.
        await handle.truncate(openBytes).catch(() => {})
        drop(lines.length)
      }
    }
    if (handle && (openLines >= segmentEntries || Date.now() - openedAt >= segmentMs)) await sealOpen()
    await saveState().catch(() => {})
  }

  /** One disk task at a time (commits, seals); lines queued meanwhile go in the next commit. */
  let chain: Promise<void> = Promise.resolve()
  let busy = 0
  function serial(task: () => Promise<void>): Promise<void> {
    busy++
    const run = chain.then(task).finally(() => {
      busy--
      opts.onCommit?.()
    })
    chain = run.catch(() => {})
    return run
  }
  const commit = () => serial(commitOnce)

  let scheduled = false
  const timer = setInterval(() => {
    if (busy === 0 && (queued.length > 0 || handle)) void commit()
  }, commitMs)
  timer.unref()

  return {
    dir,
    append(entry) {
      if (closed) return false
      const line = JSON.stringify(entry) + '\n'
      // Byte length of this line only: linear in the entry, not in the backlog.
      const bytes = Buffer.byteLength(line)
      if (diskBytes + queuedBytes + bytes > maxBytes) {
        drop(1)
        return false
      }
      queued.push(line)
      queuedBytes += bytes
      queuedSince ??= Date.now()
      if (queued.length >= commitEntries && !scheduled) {
        scheduled = true
        queueMicrotask(() => {
          scheduled = false
          void commit()
        })
      }
      return true
    },
    commit,
    commitSync() {
      if (queued.length === 0) return
      const data = queued.join('')
      const n = queued.length
      queued = []
      queuedBytes = 0
      queuedSince = null
      // A file of its own, sealed at once: an async commit may be mid-write on the open segment.
      const id = newId()
      const file = at(nameOf(id, 'open'))
      let fd: number | null = null
      try {
        fd = openSync(file, 'a', FILE_MODE)
        writeSync(fd, data)
        fdatasyncSync(fd)
        diskBytes += Buffer.byteLength(data)
      } catch {
        if (fd !== null) ftruncateSync(fd, 0)
        persisted.dropped += n
        persisted.lastDroppedAt = Date.now()
      } finally {
        if (fd !== null) closeSync(fd)
      }
      try {
        renameSync(file, at(nameOf(id, 'ready')))
      } catch {
        // left `open` under this pid: the next process on the directory claims it once this one is gone
      }
      try {
        writeFileSync(at(STATE_FILE), JSON.stringify(persisted), { mode: FILE_MODE })
      } catch {
        // the count is best effort on an exit that cannot wait
      }
    },
    seal: () =>
      serial(async () => {
        await commitOnce()
        await sealOpen()
      }),
    async claim(maxClaimBytes) {
      if (Date.now() - lastAdopt >= ADOPT_MS) {
        lastAdopt = Date.now()
        if (adopt() > 0) waiting = true
      }
      const files = readdirSync(dir).sort()
      const picked: string[] = []
      let bytes = 0
      for (const file of files) {
        const m = SEGMENT_NAME.exec(file)
        if (!m) continue
        const [, , , pid, holder, state] = m
        const mine = holder === instance
        const id = `${m[1]}-${m[2]}`
        // Ready; or left by a dead process; or ours, claimed once and neither stored nor given back (an I/O error).
        const claimable = state === 'ready' || (mine ? state === 'replaying' && !claimedNow.has(id) : processIsGone(Number(pid)))
        if (!claimable) continue
        picked.push(file)
        bytes += onDisk.get(id)?.bytes ?? 0
        if (bytes >= maxClaimBytes) break
      }
      if (picked.length === 0) {
        waiting = false
        return null
      }
      const segments: SpoolSegment[] = []
      const claimed: Array<{ id: string; path: string }> = []
      for (const file of picked) {
        const m = SEGMENT_NAME.exec(file)!
        const id = `${m[1]}-${m[2]}`
        const claimedPath = at(nameOf(id, 'replaying'))
        try {
          await rename(at(file), claimedPath)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue // another process took it
          throw error
        }
        const text = await readFile(claimedPath, 'utf8')
        // One segment (≤ SEGMENT_ENTRIES lines) parsed at a time, the event loop free in between.
        if (segments.length > 0) await new Promise((resolve) => setImmediate(resolve))
        const { rows, unreadable } = parseLines(text)
        const size = Buffer.byteLength(text)
        if (!onDisk.has(id)) {
          onDisk.set(id, { bytes: size, at: timeOf(id) })
          diskBytes += size
        }
        segments.push({ name: id, rows, unreadable, bytes: size })
        claimed.push({ id, path: claimedPath })
        claimedNow.add(id)
      }
      if (segments.length === 0) return null
      return {
        segments,
        rows: segments.flatMap((s) => s.rows),
        async done() {
          for (const c of claimed) {
            try {
              await unlink(c.path).catch((error: NodeJS.ErrnoException) => {
                if (error.code !== 'ENOENT') throw error
              })
              diskBytes -= onDisk.get(c.id)?.bytes ?? 0
              onDisk.delete(c.id)
            } finally {
              claimedNow.delete(c.id) // not deleted: claimable again (stored once more, a no-op)
            }
          }
        },
        async release() {
          for (const c of claimed) {
            await rename(c.path, at(nameOf(c.id, 'ready'))).catch(() => {})
            claimedNow.delete(c.id)
          }
          waiting = true
        },
      }
    },
    hasWaiting: () => waiting,
    status() {
      let oldest: number | null = null
      for (const s of onDisk.values()) if (oldest === null || s.at < oldest) oldest = s.at
      if (queuedSince !== null && (oldest === null || queuedSince < oldest)) oldest = queuedSince
      return {
        dir,
        budgetBytes: maxBytes,
        bytes: diskBytes + queuedBytes,
        segments: onDisk.size,
        oldestEntryAt: oldest,
        dropped: persisted.dropped,
        droppedSince: persisted.since,
        lastDroppedAt: persisted.lastDroppedAt,
        uncommitted: queued.length,
      }
    },
    async close() {
      clearInterval(timer)
      await this.seal()
      closed = true
    },
  }
}

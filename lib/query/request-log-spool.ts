import 'server-only'
import { randomBytes } from 'node:crypto'
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs'
import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises'
import path from 'node:path'

// A local NDJSON spool for request-log entries the database cannot take: on shutdown past the
// flush deadline, and when the in-memory buffer is full during an outage. Every append is fsync'd.
//
// Files are segments named `<id>.<pid>.<instance>.<state>.ndjson`, pid and instance naming the
// process that holds them:
//   open       the holder is appending to it
//   ready      sealed, waiting to be written to the database (any process may claim it)
//   replaying  claimed by one process (an atomic rename, so two processes never replay the same one)
// A segment left `open` or `replaying` by a process that is gone (crash, kill) is claimable again,
// so nothing is lost; replaying it twice relies on the database write being idempotent by request id.

export type SpoolRow = Record<string, unknown>

export interface SpoolSegment {
  rows: SpoolRow[]
  /** Lines that could not be parsed (a torn last line after a crash), skipped. */
  unreadable: number
  /** The rows are in the database: delete the segment. */
  done(): Promise<void>
  /** The write failed: give the segment back for a later attempt. */
  release(): Promise<void>
}

export interface Spool {
  dir: string
  /** Appends rows (fsync'd). Returns how many did not fit the budget and were dropped. */
  append(rows: SpoolRow[]): Promise<number>
  /** The same, synchronously, for an exit that cannot wait. */
  appendSync(rows: SpoolRow[]): number
  /** Claims the next segment waiting to be written, sealing this process's open one first. */
  claim(): Promise<SpoolSegment | null>
  /** True when some segment may be waiting (cheap: no disk access). */
  hasWaiting(): boolean
  bytes(): number
}

const NAME = /^([0-9a-z]+-[0-9a-f]+)\.(\d+)\.([0-9a-f]+)\.(open|ready|replaying)\.ndjson$/

function processIsGone(pid: number): boolean {
  if (pid === process.pid) return true // same pid, other instance: the earlier process is gone (containers reuse pids)
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

export function createSpool(dir: string, maxBytes: number): Spool {
  mkdirSync(dir, { recursive: true })
  // A directory chosen at run time: the build must not trace it (it would trace the whole project).
  const at = (file: string) => path.join(/*turbopackIgnore: true*/ dir, file)
  const instance = randomBytes(4).toString('hex')
  const nameOf = (id: string, state: 'open' | 'ready' | 'replaying') => `${id}.${process.pid}.${instance}.${state}.ndjson`
  const newId = () => `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
  let openName: string | null = null
  let handle: FileHandle | null = null
  let queue: Promise<unknown> = Promise.resolve()
  let waiting = true // segments of earlier processes may be there
  let total = readdirSync(dir)
    .filter((f) => NAME.test(f))
    .reduce((sum, f) => sum + statSync(at(f)).size, 0)

  /** Serialises the file operations of this process. */
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task)
    queue = run.catch(() => {})
    return run
  }

  /** The rows that fit the budget, serialised, and how many were left out. */
  function fit(rows: SpoolRow[]): { data: string; dropped: number } {
    let data = ''
    let kept = 0
    for (const row of rows) {
      const line = JSON.stringify(row) + '\n'
      if (total + Buffer.byteLength(data) + Buffer.byteLength(line) > maxBytes) break
      data += line
      kept++
    }
    return { data, dropped: rows.length - kept }
  }

  async function seal() {
    if (!handle || !openName) return
    await handle.close()
    await rename(at(openName), at(openName.replace(/\.open\.ndjson$/, '.ready.ndjson')))
    handle = null
    openName = null
  }

  async function claimable(): Promise<string | null> {
    for (const file of readdirSync(dir).sort()) {
      const m = NAME.exec(file)
      if (!m) continue
      const [, , pid, holder, state] = m
      if (state === 'ready') return file
      if (holder !== instance && processIsGone(Number(pid))) return file
    }
    return null
  }

  return {
    dir,
    append: (rows) =>
      serial(async () => {
        const { data, dropped } = fit(rows)
        if (data) {
          if (!handle) {
            openName = nameOf(newId(), 'open')
            handle = await open(at(openName), 'a')
          }
          await handle.appendFile(data)
          await handle.sync()
          total += Buffer.byteLength(data)
          waiting = true
        }
        return dropped
      }),
    appendSync(rows) {
      const { data, dropped } = fit(rows)
      if (data) {
        // A file of its own: the async queue may be mid-write on the open segment.
        const fd = openSync(at(nameOf(newId(), 'ready')), 'a')
        try {
          appendFileSync(fd, data)
          fsyncSync(fd)
        } finally {
          closeSync(fd)
        }
        total += Buffer.byteLength(data)
      }
      return dropped
    },
    claim: () =>
      serial(async () => {
        await seal()
        const file = await claimable()
        if (!file) {
          waiting = false
          return null
        }
        const id = NAME.exec(file)![1]
        const claimedPath = at(nameOf(id, 'replaying'))
        try {
          await rename(at(file), claimedPath)
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null // another process took it
          throw error
        }
        const text = await readFile(claimedPath, 'utf8')
        const rows: SpoolRow[] = []
        let unreadable = 0
        for (const line of text.split('\n')) {
          if (!line.trim()) continue
          try {
            rows.push(JSON.parse(line) as SpoolRow)
          } catch {
            unreadable++
          }
        }
        const size = Buffer.byteLength(text)
        return {
          rows,
          unreadable,
          done: () =>
            serial(async () => {
              await unlink(claimedPath)
              total -= size
            }),
          release: () => serial(() => rename(claimedPath, at(nameOf(id, 'ready')))),
        }
      }),
    hasWaiting: () => waiting || handle !== null,
    bytes: () => total,
  }
}

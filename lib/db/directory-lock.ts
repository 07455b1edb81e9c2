import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import path from 'node:path'
import { processSlot } from '@/lib/process-slot'

// One owner per PGlite directory. Two processes on one directory both accept writes and leave it
// unopenable for good (PGlite keeps its pages in memory and writes them back on its own schedule;
// postmaster.pid does not stop a second WASM instance). Before the database opens, the process
// creates `<dir>.lock` with O_EXCL holding its pid and start time; a second server, job or seed
// run finds it and refuses with the holder's name. A lock whose holder is gone (the pid is not
// running, or runs a different process started at another time: pid reuse after a crash) is taken
// over. Released when the database closes and when the process exits. A holder that was killed is
// gone as soon as the kernel says so (its pid is free, or it is exiting or a zombie), not after some
// time. The request log's journal (lib/request-log/writer.ts) locks each instance's directory the same way.

export interface LockHolder {
  pid: number
  /** ISO time the holding process started. */
  startedAt: string
  /** Start time in clock ticks since boot (Linux /proc/<pid>/stat), to tell a reused pid apart; null elsewhere. */
  startTicks: number | null
  /** The holder's command line, for the message. */
  command: string
  /** The holder's host name: a pid says nothing about a process on another host (a shared volume). */
  hostname?: string
}

/** What a locked directory holds, for the refusal's sentence. */
export type LockedKind = 'pglite' | 'journal'

export class DirectoryLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
    readonly lockFile: string,
    kind: LockedKind = 'pglite',
  ) {
    const by = `by another process (pid ${holder.pid}${holder.hostname && holder.hostname !== hostname() ? ` on ${holder.hostname}` : ''}, started ${holder.startedAt}: ${holder.command})`
    super(
      kind === 'pglite'
        ? `The embedded database directory ${dir} is in use ${by}. ` +
            `One process owns a PGlite directory: stop that process first, or set PGLITE_DIR to another directory (or DATABASE_URL for a Postgres server). Lock file: ${lockFile}`
        : `The request-log journal directory ${dir} is in use ${by}. ` +
            `One process owns an instance's journal: stop that process first, or give this instance its own REQUEST_LOG_INSTANCE (or REQUEST_LOG_SPOOL_DIR). Lock file: ${lockFile}`,
    )
    this.name = 'DirectoryLockedError'
  }
}

export const lockFileOf = (dir: string) => `${path.resolve(dir).replace(/[\\/]+$/, '')}.lock`

/** Fields 3 onwards of /proc/<pid>/stat (state first), or null where /proc is not there (or the pid is not running). */
function procStat(pid: number | 'self'): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

/** Start time of `pid` in clock ticks since boot (field 22), or null. */
function startTicksOf(pid: number | 'self'): number | null {
  const ticks = Number(procStat(pid)?.[19])
  return Number.isFinite(ticks) ? ticks : null
}

/** PF_EXITING in the flags (field 9): the process is being torn down (a kill -9 takes a moment to free a large heap). */
const PF_EXITING = 0x4

/** SIGKILL sent and not yet acted on (the target has not run since): bit 9 of SigPnd or ShdPnd in /proc/<pid>/status. */
function killPending(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => (BigInt(`0x${m[1]}`) & 0x100n) !== 0n)
  } catch {
    return false
  }
}

/**
 * Whether the lock's holder still runs. The pid answers signal 0 from the moment it is killed
 * until its parent reaps it (a busy parent took over a second); a process with a SIGKILL pending,
 * exiting, or a zombie (state Z, X) holds nothing.
 */
export function isRunning(holder: LockHolder): boolean {
  // A holder on another host sharing the volume: its pid means nothing here; only it can release the lock.
  if (holder.hostname && holder.hostname !== hostname()) return true
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: the pid runs as another user, so it is running.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const stat = procStat(holder.pid)
  if (stat === null) return true // no /proc: signal 0 is all we know
  if (stat[0] === 'Z' || stat[0] === 'X' || (Number(stat[6]) & PF_EXITING) !== 0 || killPending(holder.pid)) return false
  return holder.startTicks === null || Number(stat[19]) === holder.startTicks
}

/** This process (a pid of another host's container is another process). */
const isMe = (holder: LockHolder) => holder.pid === process.pid && (holder.hostname ?? hostname()) === hostname()

export function readHolder(file: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as LockHolder
    return Number.isInteger(parsed.pid) ? parsed : null
  } catch {
    return null
  }
}

const me = (): LockHolder => ({
  pid: process.pid,
  startedAt: new Date(Date.now() - Math.round(process.uptime() * 1000)).toISOString(),
  startTicks: startTicksOf('self'),
  command: process.argv
    .map((a) => path.basename(a))
    .join(' ')
    .slice(0, 200),
  hostname: hostname(),
})

// Once per process: the server's bundles (instrumentation, route handlers) each load this module.
const held = processSlot<Map<string, () => void>>('directory-locks').getOrCreate(() => new Map())

/**
 * Takes the lock of directory `dir` (PGlite's, or an instance's journal) for this process, or
 * throws DirectoryLockedError naming the holder. Idempotent within a process. Returns the release
 * function (also run at exit).
 */
export function lockDirectory(dir: string, kind: LockedKind = 'pglite'): () => void {
  const file = lockFileOf(dir)
  const existing = held.get(file)
  if (existing) return existing
  const holder = me()
  // The lock file sits beside the directory, whose parent a fresh checkout may not have yet (.data/).
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600)
      try {
        writeSync(fd, JSON.stringify(holder) + '\n')
      } finally {
        closeSync(fd)
      }
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error
    }
    const current = readHolder(file)
    if (current && !isMe(current) && isRunning(current)) throw new DirectoryLockedError(dir, current, file, kind)
    if (!current && Date.now() - mtimeOf(file) < 2000) {
      // Just created and not written yet by another starting process: give it a moment.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100)
      continue
    }
    // Stale (its holder died, or a torn file): move it aside under a name of our own, so two
    // processes taking over at once cannot both succeed; the O_EXCL create above decides.
    const aside = `${file}.stale-${process.pid}`
    try {
      renameSync(file, aside)
      const moved = readHolder(aside)
      // Another process took it over between our read and the rename: put its lock back.
      if (moved && moved.pid !== current?.pid && isRunning(moved)) {
        renameSync(aside, file)
        throw new DirectoryLockedError(dir, moved, file, kind)
      }
      unlinkSync(aside)
    } catch (error) {
      if (error instanceof DirectoryLockedError) throw error
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  let released = false
  const release = () => {
    if (released) return
    released = true
    held.delete(file)
    process.off('exit', release)
    // Only our own lock: never remove one another process took over.
    const current = readHolder(file)
    if (current && isMe(current)) {
      try {
        unlinkSync(file)
      } catch {
        // already gone
      }
    }
  }
  process.on('exit', release)
  held.set(file, release)
  return release
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs
  } catch {
    return 0
  }
}

import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs'
import path from 'node:path'
import { processSlot } from '@/lib/process-slot'

// One owner per PGlite directory. Two processes on one directory both accept writes and leave it
// unopenable for good (PGlite keeps its pages in memory and writes them back on its own schedule;
// postmaster.pid does not stop a second WASM instance). Before the database opens, the process
// creates `<dir>.lock` with O_EXCL holding its pid and start time; a second server, job or seed
// run finds it and refuses with the holder's name. A lock whose holder is gone (the pid is not
// running, or runs a different process started at another time: pid reuse after a crash) is taken
// over. Released when the database closes and when the process exits.

export interface LockHolder {
  pid: number
  /** ISO time the holding process started. */
  startedAt: string
  /** Start time in clock ticks since boot (Linux /proc/<pid>/stat), to tell a reused pid apart; null elsewhere. */
  startTicks: number | null
  /** The holder's command line, for the message. */
  command: string
}

export class DirectoryLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
    readonly lockFile: string,
  ) {
    super(
      `The embedded database directory ${dir} is in use by another process (pid ${holder.pid}, started ${holder.startedAt}: ${holder.command}). ` +
        `One process owns a PGlite directory: stop that process first, or set PGLITE_DIR to another directory (or DATABASE_URL for a Postgres server). Lock file: ${lockFile}`,
    )
    this.name = 'DirectoryLockedError'
  }
}

export const lockFileOf = (dir: string) => `${path.resolve(dir).replace(/[\\/]+$/, '')}.lock`

/** Start time of `pid` in clock ticks since boot, or null where /proc is not there (or the pid is not running). */
function startTicksOf(pid: number | 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Field 22; the command name (field 2) is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[19])
    return Number.isFinite(ticks) ? ticks : null
  } catch {
    return null
  }
}

function isRunning(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    // EPERM: the pid runs as another user, so it is running.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  if (holder.startTicks === null) return true
  const ticks = startTicksOf(holder.pid)
  return ticks === null || ticks === holder.startTicks
}

function readHolder(file: string): LockHolder | null {
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
})

// Once per process: the server's bundles (instrumentation, route handlers) each load this module.
const held = processSlot<Map<string, () => void>>('directory-locks').getOrCreate(() => new Map())

/**
 * Takes the lock of PGlite directory `dir` for this process, or throws DirectoryLockedError naming
 * the holder. Idempotent within a process. Returns the release function (also run at exit).
 */
export function lockDirectory(dir: string): () => void {
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
    if (current && current.pid !== process.pid && isRunning(current)) throw new DirectoryLockedError(dir, current, file)
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
        throw new DirectoryLockedError(dir, moved, file)
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
    if (readHolder(file)?.pid === process.pid) {
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

import 'server-only'
import { readdirSync } from 'node:fs'
import { hostname } from 'node:os'
import path from 'node:path'
import type { Config } from '@/lib/config'
import { isRunning, lockFileOf, readHolder } from '@/lib/db/directory-lock'
import { SEGMENT_NAME, processIsGone } from '@/lib/request-log/spool'

// Several instances on one journal directory (REQUEST_LOG_SPOOL_DIR, or the default beside
// PGLITE_DIR that every process run from one checkout shares): each works in a directory of its
// own, `<journal>/<instance>`, locked like the PGlite directory, so a second live process on the
// same instance refuses to start naming the holder. The instance name survives restarts (host name
// and port, or REQUEST_LOG_INSTANCE), so a restarted instance finds what it left. What an instance
// that is gone for good left behind (its lock released or its holder dead, on this host) is adopted
// by the others: orphanSegments() names those files and the spool moves them into its own directory.

/** This instance's name: REQUEST_LOG_INSTANCE, else `<host name>-<PORT>` (characters outside [A-Za-z0-9_.-] as `_`). */
export function instanceName(c: Pick<Config, 'REQUEST_LOG_INSTANCE' | 'PORT'>, host = hostname()): string {
  return c.REQUEST_LOG_INSTANCE ?? `${host}-${c.PORT}`.replace(/[^A-Za-z0-9_.-]/g, '_')
}

/**
 * Segment files under journal directory `root` that no live process holds: in sibling instance
 * directories whose lock is released or whose holder is gone (a holder on another host counts as
 * live: its pid says nothing here), and, left by earlier versions, in `root` itself (sealed, or
 * their writer is gone).
 */
export function orphanSegments(root: string, own: string): string[] {
  const found: string[] = []
  const unheld = (state: string, pid: string) => state === 'ready' || processIsGone(Number(pid))
  let entries
  try {
    entries = readdirSync(root, { withFileTypes: true })
  } catch {
    return found
  }
  for (const entry of entries) {
    const at = path.join(root, entry.name)
    if (entry.isFile()) {
      const m = SEGMENT_NAME.exec(entry.name)
      if (m && unheld(m[5], m[3])) found.push(at)
      continue
    }
    if (!entry.isDirectory() || at === own) continue
    const holder = readHolder(lockFileOf(at))
    if (holder && isRunning(holder)) continue
    let files: string[]
    try {
      files = readdirSync(at)
    } catch {
      continue
    }
    for (const file of files) {
      const m = SEGMENT_NAME.exec(file)
      if (m && unheld(m[5], m[3])) found.push(path.join(at, file))
    }
  }
  return found
}

import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs'
import path from 'node:path'

// Data at rest (the embedded database, the request-log journal) is for this process's user only:
// its directory is 0700 and what is inside it is not readable by group or others, whatever the
// umask. A directory that group or others can write is refused, not repaired: someone else may
// already have put files in it.

export class InsecureDirectoryError extends Error {
  constructor(
    readonly dir: string,
    mode: number,
  ) {
    super(
      `The directory ${dir} can be written by other users (mode ${(mode & 0o777).toString(8).padStart(3, '0')}); it holds data for this server's user only. ` +
        `Check what is in it, then run: chmod 700 ${dir}`,
    )
    this.name = 'InsecureDirectoryError'
  }
}

/**
 * Creates `dir` (and missing parents) with mode 0700, or takes an existing one: refused with
 * InsecureDirectoryError when group or others can write it, tightened to 0700 otherwise.
 */
export function ensurePrivateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = lstatSync(dir)
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`)
  if (stat.mode & 0o022) throw new InsecureDirectoryError(dir, stat.mode)
  if (stat.mode & 0o077) chmodSync(dir, stat.mode & 0o700)
}

/**
 * Takes every permission of group and others away from what is inside `dir`, at any depth
 * (symbolic links are left alone). PGlite writes the files of a new database 0666 and some of its
 * own later 0644 whatever the umask, so this runs after it opened and after it closed.
 */
export function tightenContents(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue
    const file = path.join(dir, entry.name)
    try {
      const { mode } = lstatSync(file)
      if (mode & 0o077) chmodSync(file, mode & 0o700)
      if (entry.isDirectory()) tightenContents(file)
    } catch (error) {
      // Removed meanwhile (a temporary file of the database).
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}

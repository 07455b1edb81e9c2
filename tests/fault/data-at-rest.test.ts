import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startApp } from '../../test-support/app'

// `npm start` on the embedded database under umask 000 (the worst case): the PGlite directory and
// the request-log journal are 0700 and nothing inside them is readable by group or others, during
// the run and after it; a data directory other users can write stops start-up with the fix.

const base = mkdtempSync(path.join(tmpdir(), 'fault-at-rest-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

/** Every path under `dir` (itself included) that group or others can access, with its mode. */
const exposed = (dir: string) =>
  execFileSync('find', [dir, '!', '-type', 'l', '-perm', '/077', '-printf', '%m %p\\n'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean)

async function underUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask)
  try {
    return await fn()
  } finally {
    process.umask(previous)
  }
}

describe('data at rest', () => {
  it('keeps the embedded database and the request-log journal private under umask 000', async () => {
    const dir = path.join(base, 'fresh', 'pglite')
    const spool = path.join(base, 'fresh', 'request-log-spool')
    const app = await underUmask(0, () => startApp({ PGLITE_DIR: dir }))
    try {
      for (let i = 0; i < 5; i++) expect((await fetch(`${app.url}/api/generate/guid`)).status).toBe(200)
      expect(statSync(path.join(dir, 'postgresql.conf')).isFile()).toBe(true)
      expect(exposed(dir)).toEqual([])
      expect(exposed(spool)).toEqual([])
      expect(statSync(path.dirname(dir)).mode & 0o777).toBe(0o700)
    } finally {
      await app.stop()
    }
    // What the database rewrote as it ran and at its close.
    expect(exposed(dir)).toEqual([])
    expect(exposed(spool)).toEqual([])
  })

  it('refuses a data directory other users can write, naming it and the fix', async () => {
    const dir = path.join(base, 'shared', 'pglite')
    mkdirSync(dir, { recursive: true })
    chmodSync(dir, 0o777)
    const outcome = await startApp({ PGLITE_DIR: dir }).then(
      async (app) => {
        await app.stop()
        return { started: true, output: app.logs() }
      },
      (error: Error) => ({ started: false, output: error.message }),
    )
    expect(outcome.started, outcome.output).toBe(false)
    expect(outcome.output).toContain(`The directory ${dir} can be written by other users (mode 777)`)
    expect(outcome.output).toContain(`chmod 700 ${dir}`)
  })
})

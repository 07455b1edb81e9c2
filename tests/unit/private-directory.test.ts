import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensurePrivateDirectory, InsecureDirectoryError, tightenContents } from '@/lib/db/private-directory'
import { createSpool } from '@/lib/request-log/spool'
import { requestLogEntry } from '../../test-support/request-log-entry'

// Data at rest is this user's only whatever the umask: directories 0700, files 0600, and a
// directory other users can write is refused with the fix. Run under umask 000, the worst case.

const base = mkdtempSync(path.join(tmpdir(), 'private-dir-'))
const modeOf = (p: string) => statSync(p).mode & 0o777
let umask: number
beforeAll(() => {
  umask = process.umask(0)
})
afterAll(() => {
  process.umask(umask)
  rmSync(base, { recursive: true, force: true })
})

describe('ensurePrivateDirectory', () => {
  it('creates the directory and its missing parents 0700 under umask 000', () => {
    const dir = path.join(base, 'new', 'pglite')
    ensurePrivateDirectory(dir)
    expect(modeOf(dir)).toBe(0o700)
    expect(modeOf(path.dirname(dir))).toBe(0o700)
  })

  it('tightens an existing directory that others can only read', () => {
    const dir = path.join(base, 'readable')
    mkdirSync(dir, { mode: 0o755 })
    ensurePrivateDirectory(dir)
    expect(modeOf(dir)).toBe(0o700)
  })

  it.each([0o777, 0o775, 0o757])('refuses an existing directory of mode %o, naming it and the fix', (mode) => {
    const dir = path.join(base, `writable-${mode.toString(8)}`)
    mkdirSync(dir)
    chmodSync(dir, mode)
    expect(() => ensurePrivateDirectory(dir)).toThrow(InsecureDirectoryError)
    expect(() => ensurePrivateDirectory(dir)).toThrow(`The directory ${dir} can be written by other users (mode ${mode.toString(8)})`)
    expect(() => ensurePrivateDirectory(dir)).toThrow(`chmod 700 ${dir}`)
    expect(modeOf(dir)).toBe(mode) // refused, not repaired
  })
})

describe('tightenContents', () => {
  it('takes group and other permissions off every file and directory inside', () => {
    const dir = path.join(base, 'contents')
    mkdirSync(path.join(dir, 'base', '1'), { recursive: true, mode: 0o777 })
    writeFileSync(path.join(dir, 'postgresql.conf'), 'x', { mode: 0o666 })
    writeFileSync(path.join(dir, 'base', '1', '1247'), 'x', { mode: 0o644 })
    tightenContents(dir)
    expect(modeOf(path.join(dir, 'base'))).toBe(0o700)
    expect(modeOf(path.join(dir, 'base', '1'))).toBe(0o700)
    expect(modeOf(path.join(dir, 'postgresql.conf'))).toBe(0o600)
    expect(modeOf(path.join(dir, 'base', '1', '1247'))).toBe(0o600)
  })
})

describe('request-log journal', () => {
  it('is a 0700 directory of 0600 files under umask 000', async () => {
    const dir = path.join(base, 'request-log-spool')
    const spool = createSpool(dir, 1024 * 1024)
    spool.append(requestLogEntry({ requestId: 'r1' }))
    await spool.commit()
    spool.append(requestLogEntry({ requestId: 'r2' }))
    spool.commitSync()
    await spool.seal()
    const files = readdirSync(dir)
    expect(files.filter((f) => f.endsWith('.ndjson')).length).toBeGreaterThan(0)
    expect(modeOf(dir)).toBe(0o700)
    for (const file of files) expect([file, modeOf(path.join(dir, file))]).toEqual([file, 0o600])
    await spool.close()
  })

  it('refuses a journal directory others can write', () => {
    const dir = path.join(base, 'shared-spool')
    mkdirSync(dir, { mode: 0o777 })
    expect(() => createSpool(dir, 1024)).toThrow(/can be written by other users .*chmod 700/)
  })
})

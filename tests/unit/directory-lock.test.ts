import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DirectoryLockedError, lockDirectory, lockFileOf } from '@/lib/db/directory-lock'

const base = mkdtempSync(path.join(tmpdir(), 'dir-lock-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const ticksOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
}
const holder = (pid: number, startTicks: number | null) =>
  JSON.stringify({ pid, startedAt: '2026-01-01T00:00:00.000Z', startTicks, command: 'node server.mjs' })

describe('lockDirectory', () => {
  it('creates <dir>.lock with this process as holder and removes it on release', () => {
    const dir = path.join(base, 'a')
    const release = lockDirectory(dir)
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(process.pid)
    expect(lockDirectory(dir)).toBe(release) // idempotent within a process
    release()
    expect(existsSync(lockFileOf(dir))).toBe(false)
  })

  it('creates the parent folder of a directory a fresh checkout does not have yet (.data/pglite)', () => {
    const dir = path.join(base, 'missing-parent', 'pglite')
    const release = lockDirectory(dir)
    expect(existsSync(lockFileOf(dir))).toBe(true)
    release()
  })

  it('refuses while a live process holds the lock, naming the directory and the holder', async () => {
    const dir = path.join(base, 'b')
    const child = spawn('sleep', ['30'])
    try {
      await new Promise((r) => child.once('spawn', r))
      writeFileSync(lockFileOf(dir), holder(child.pid!, ticksOf(child.pid!)))
      expect(() => lockDirectory(dir)).toThrow(DirectoryLockedError)
      expect(() => lockDirectory(dir)).toThrow(`${dir} is in use by another process (pid ${child.pid}, started 2026-01-01T00:00:00.000Z: node server.mjs)`)
      expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(child.pid) // left alone
    } finally {
      child.kill()
    }
  })

  it('takes over a lock whose holder died', () => {
    const dir = path.join(base, 'c')
    const dead = spawnSync('true').pid!
    writeFileSync(lockFileOf(dir), holder(dead, null))
    const release = lockDirectory(dir)
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(process.pid)
    release()
  })

  it('takes over a lock whose pid now belongs to another process (started at another time)', async () => {
    const dir = path.join(base, 'd')
    const child = spawn('sleep', ['30'])
    try {
      await new Promise((r) => child.once('spawn', r))
      writeFileSync(lockFileOf(dir), holder(child.pid!, ticksOf(child.pid!) - 1))
      const release = lockDirectory(dir)
      expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(process.pid)
      release()
    } finally {
      child.kill()
    }
  })

  it('takes over a lock a previous process with the same pid left (a container restart)', () => {
    const dir = path.join(base, 'e')
    writeFileSync(lockFileOf(dir), holder(process.pid, 1))
    const release = lockDirectory(dir)
    expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).startTicks).not.toBe(1)
    release()
  })

  it('takes over at once the lock of a holder that was just killed: SIGKILL pending, then a zombie not yet reaped', async () => {
    const dir = path.join(base, 'f')
    const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0]
    for (const waitFor of ['nothing', 'zombie']) {
      const child = spawn('sleep', ['30'])
      await new Promise((r) => child.once('spawn', r))
      writeFileSync(lockFileOf(dir), holder(child.pid!, ticksOf(child.pid!)))
      expect(() => lockDirectory(dir)).toThrow(DirectoryLockedError)
      child.kill('SIGKILL')
      // No await from here: this process cannot reap the child, so its pid still answers signal 0.
      if (waitFor === 'zombie') while (state(child.pid!) !== 'Z');
      expect(() => process.kill(child.pid!, 0)).not.toThrow()
      const release = lockDirectory(dir)
      expect(JSON.parse(readFileSync(lockFileOf(dir), 'utf8')).pid).toBe(process.pid)
      release()
    }
  })

  it('refuses a holder on another host even with this pid (a shared volume), and names the journal when asked', () => {
    const dir = path.join(base, 'g')
    writeFileSync(lockFileOf(dir), JSON.stringify({ ...JSON.parse(holder(process.pid, 1)), hostname: 'other-host' }))
    expect(() => lockDirectory(dir)).toThrow(`${dir} is in use by another process (pid ${process.pid} on other-host, started`)
    expect(() => lockDirectory(dir, 'journal')).toThrow(
      `The request-log journal directory ${dir} is in use by another process (pid ${process.pid} on other-host`,
    )
  })
})

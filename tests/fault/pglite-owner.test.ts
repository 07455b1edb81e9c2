import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, describe, expect, it } from 'vitest'
import { createDatabase } from '@/lib/db/client'
import { startApp } from '../../test-support/app'
import { report } from '../../test-support/fault'

// One owner per PGlite directory: with a server on a directory, a second server, a job and a seed
// run on the same directory refuse at once, naming the directory and the holder, and exit non-zero;
// the first server keeps answering, and once it stops the directory opens with its rows intact.

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const base = mkdtempSync(path.join(tmpdir(), 'fault-owner-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

function npmRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string; ms: number }> {
  const t0 = Date.now()
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } as unknown as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (d: Buffer) => (output += d))
    child.stderr!.on('data', (d: Buffer) => (output += d))
    child.on('exit', (code) => resolve({ code, output, ms: Date.now() - t0 }))
  })
}

describe('two processes on one PGlite directory', () => {
  it('refuses the second server, a job and a seed run; the holder keeps answering; the directory reopens intact', async () => {
    const dir = path.join(base, 'pglite')
    const userAgent = `fault-owner-${randomUUID()}`
    const first = await startApp({ PGLITE_DIR: dir, RATE_LIMIT_MAX: '1000000' })
    let sent = 0
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await fetch(`${first.url}/api/generate/guid`, { headers: { 'user-agent': userAgent } })
        expect(res.status).toBe(200)
        await res.body?.cancel()
        sent++
      }
    }
    try {
      await send(20)
      const holder = new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another process \\(pid ${first.pid}, started [^:]+:`)

      // A second server on the same directory: exits non-zero before it listens.
      const t0 = Date.now()
      const second = await startApp({ PGLITE_DIR: dir }).then(
        async (app) => {
          await app.stop()
          return { started: true, output: app.logs(), ms: Date.now() - t0 }
        },
        (error: Error) => ({ started: false, output: error.message, ms: Date.now() - t0 }),
      )
      expect(second.started, second.output).toBe(false)
      expect(second.output).toMatch(/app exited with 1/)
      expect(second.output).toMatch(holder)
      await send(10)

      const job = await npmRun(['job', '--', 'partition-maintenance'], { PGLITE_DIR: dir, DATABASE_URL: '' })
      expect(job.code, job.output).toBe(1)
      expect(job.output).toMatch(holder)
      await send(10)

      const seed = await npmRun(['db:seed', '--', '--rows', '10'], { PGLITE_DIR: dir, DATABASE_URL: '' })
      expect(seed.code, seed.output).not.toBe(0)
      expect(seed.output).toMatch(holder)
      await send(10)

      const health = await fetch(`${first.url}/api/health`)
      expect(health.status).toBe(200)
      expect((await health.json()).checks.database.status).toBe('ok')
      report('second owner of a PGlite directory', {
        secondServerMs: second.ms,
        jobExit: job.code,
        jobMs: job.ms,
        seedExit: seed.code,
        seedMs: seed.ms,
        answeredByHolder: sent,
      })
    } finally {
      await first.stop()
    }
    expect(existsSync(`${dir}.lock`)).toBe(false)

    // The directory opens (no corruption) with every request-log row of the holder.
    const database = await createDatabase({ PGLITE_DIR: dir })
    try {
      const { rows } = (await database.db.execute(sql`SELECT count(*)::int AS n FROM request_log WHERE user_agent = ${userAgent}`)) as unknown as {
        rows: { n: number }[]
      }
      expect(rows[0].n).toBe(sent)
    } finally {
      await database.close()
    }
  })
})

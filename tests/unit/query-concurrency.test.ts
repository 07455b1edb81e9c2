import { describe, expect, it } from 'vitest'
import { sql } from 'drizzle-orm'
import type { Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { asQueryIdentity, MAX_CONCURRENT_STATEMENTS, withStatementSlot } from '@/lib/query/concurrency'
import { readOnly } from '@/lib/query/service'

// At most MAX_CONCURRENT_STATEMENTS query statements per identity run at once; the others wait
// their turn, and a 429 with Retry-After answers when none ends in time.

/** A statement that runs until `end()` is called. */
function gate() {
  let running = 0
  let peak = 0
  const ends: Array<() => void> = []
  const statement = () =>
    new Promise<void>((resolve) => {
      running++
      peak = Math.max(peak, running)
      ends.push(() => {
        running--
        resolve()
      })
    })
  return { statement, ends, running: () => running, peak: () => peak }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

async function until(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await settle()
  expect(condition()).toBe(true)
}

describe('statements per identity', () => {
  it(`runs ${MAX_CONCURRENT_STATEMENTS} at once and the next when one ends`, async () => {
    const g = gate()
    const all = Array.from({ length: 6 }, () => withStatementSlot('alice', g.statement))
    await until(() => g.running() === MAX_CONCURRENT_STATEMENTS)
    await settle()
    expect(g.running()).toBe(MAX_CONCURRENT_STATEMENTS)
    g.ends.shift()!()
    await until(() => g.ends.length === MAX_CONCURRENT_STATEMENTS)
    while (g.ends.length) {
      g.ends.shift()!()
      await settle()
    }
    await Promise.all(all)
    expect(g.peak()).toBe(MAX_CONCURRENT_STATEMENTS)
  })

  it('counts each identity apart', async () => {
    const g = gate()
    const all = [
      ...Array.from({ length: 4 }, () => withStatementSlot('alice', g.statement)),
      ...Array.from({ length: 4 }, () => withStatementSlot('bob', g.statement)),
    ]
    await until(() => g.running() === 8)
    while (g.ends.length) g.ends.shift()!()
    await Promise.all(all)
  })

  it('answers 429 with Retry-After when no slot frees within the wait', async () => {
    const g = gate()
    const held = Array.from({ length: MAX_CONCURRENT_STATEMENTS }, () => withStatementSlot('carol', g.statement))
    await until(() => g.running() === MAX_CONCURRENT_STATEMENTS)
    const error = await withStatementSlot('carol', g.statement, 20).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, details: { retryAfterSeconds: 2 } })
    expect((error as AppError).message).toContain('Too many queries at once for this operator')
    while (g.ends.length) g.ends.shift()!()
    await Promise.all(held)
    // The slots are free again.
    const after = gate()
    const next = withStatementSlot('carol', after.statement)
    await until(() => after.running() === 1)
    after.ends.shift()!()
    await next
  })

  it.each(['node-postgres', 'pglite'] as const)('readOnly counts the statements of a page against its identity (%s)', async (driver) => {
    const g = gate()
    const database = {
      driver,
      readOnly: async <T>(_timeoutMs: number, fn: (s: { execute: () => Promise<never[]> }) => Promise<T>) =>
        fn({
          execute: async () => {
            await g.statement()
            return []
          },
        }),
    } as unknown as Database
    // Six panels of a dashboard, each one statement.
    const panels = asQueryIdentity('dave', () =>
      Promise.all(Array.from({ length: 6 }, () => readOnly({ database }, (session) => session.execute(sql`SELECT 1`)))),
    )
    await until(() => g.running() === MAX_CONCURRENT_STATEMENTS)
    // Outside an identity (the alerts job): not counted.
    const job = readOnly({ database }, (session) => session.execute(sql`SELECT 1`))
    await until(() => g.running() === MAX_CONCURRENT_STATEMENTS + 1)
    while (g.ends.length || g.running()) {
      g.ends.shift()?.()
      await settle()
    }
    await Promise.all([panels, job])
    expect(g.peak()).toBe(MAX_CONCURRENT_STATEMENTS + 1)
  })
})

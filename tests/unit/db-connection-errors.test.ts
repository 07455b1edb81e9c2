import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, databaseConnectionErrors, type Database } from '@/lib/db/client'
import { startTcpProxy, type TcpProxy } from '@/test-support/tcp-proxy'
import { testDatabaseUrl } from '@/test-support/query-database'
import { ensureDatabase } from '@/scripts/ensure-database.mjs'

// A Postgres connection reset in the middle of a transaction, through a loopback proxy: no
// uncaught exception (checked-out clients have an 'error' listener), and the statement's own
// error (the reset) is what the caller gets, not the ROLLBACK's "not queryable".

const url = testDatabaseUrl('connerr')

describe.skipIf(!url)('pg connection reset mid-transaction', () => {
  let proxy: TcpProxy
  let database: Database
  const uncaught: unknown[] = []
  const onUncaught = (error: unknown) => uncaught.push(error)

  beforeAll(async () => {
    await ensureDatabase(url!)
    const target = new URL(url!)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    target.hostname = '127.0.0.1'
    target.port = String(proxy.port)
    database = await createDatabase({ DATABASE_URL: target.toString(), PGLITE_DIR: 'memory://' })
    process.on('uncaughtException', onUncaught)
  })
  afterAll(async () => {
    process.off('uncaughtException', onUncaught)
    await database?.close()
    await proxy?.close()
  })

  it('a transaction whose connection resets fails with the reset, not with the ROLLBACK', async () => {
    const before = databaseConnectionErrors()
    const failure = await database.db
      .transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`)
        setTimeout(() => proxy.cut(), 100)
        await tx.execute(sql`SELECT pg_sleep(2)`)
      })
      .then(
        () => null,
        (error: Error) => error,
      )
    proxy.restore()
    expect(failure).toBeInstanceOf(Error)
    const message = `${failure!.message} ${(failure!.cause as Error | undefined)?.message ?? ''}`
    expect(message).toMatch(/ECONNRESET|Connection terminated unexpectedly/)
    expect(message).not.toMatch(/not queryable/)
    expect(databaseConnectionErrors()).toBe(before + 1)
    // The pool discarded the broken client: the next transaction works.
    const ok = await database.db.transaction(async (tx) => tx.execute(sql`SELECT 2 AS two`))
    expect((ok as unknown as { rows: { two: number }[] }).rows[0].two).toBe(2)
    expect(uncaught).toEqual([])
  })

  it('a checked-out client whose idle connection resets raises no uncaught exception', async () => {
    const before = databaseConnectionErrors()
    await database.session!(async (query) => {
      await query('SELECT 1')
      proxy.cut()
      await sleep(300)
    })
    proxy.restore()
    await sleep(50)
    expect(uncaught).toEqual([])
    expect(databaseConnectionErrors()).toBe(before + 1)
    const rows = await database.session!((query) => query('SELECT 3 AS three'))
    expect(rows[0].three).toBe(3)
  })

  it('a BEGIN that fails on a reset connection does not keep its client checked out', async () => {
    const pool = (database.db as unknown as { $client: { totalCount: number; idleCount: number } }).$client
    await Promise.all([1, 2, 3].map(() => database.db.execute(sql`SELECT 1`))) // idle clients to hand out
    proxy.cut() // the resets reach the idle clients as BEGIN goes out on them
    const failures = await Promise.all(
      [1, 2, 3].map(() =>
        database.db
          .transaction(async (tx) => tx.execute(sql`SELECT 1`))
          .then(
            () => null,
            (e: Error) => e,
          ),
      ),
    )
    proxy.restore()
    expect(failures.every((f) => f instanceof Error)).toBe(true)
    await sleep(50)
    expect(pool.totalCount - pool.idleCount).toBe(0) // none left checked out
    expect(uncaught).toEqual([])
  })
})

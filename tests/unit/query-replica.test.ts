import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '@/lib/config'
import { createDatabase } from '@/lib/db/client'
import { cachedFor, markReplicaFailure, readLag, replicaFailure, REPLICA_RETRY_AFTER_S } from '@/lib/db/replica'
import { AppError } from '@/lib/errors'
import { formatLag, lagNote } from '@/lib/query/replica-lag'
import { readOnly } from '@/lib/query/service'
import { freePort } from '../../test-support/app'

// The query role's read replica (QUERY_DATABASE_URL): its setting, how its lag is read and when
// pages mention it, and what a query answers when the replica cannot be reached. The replica
// itself, streaming from a real primary, is in tests/integration/query-replica.test.ts.

const pgError = (code: string, message: string) => Object.assign(new Error('Failed query'), { cause: Object.assign(new Error(message), { code }) })

describe('QUERY_DATABASE_URL and QUERY_REPLICA_LAG_NOTE_S', () => {
  const primary = 'postgres://app@db.internal:5432/app'

  it('is unset by default: the query role reads DATABASE_URL; the lag note starts past 5 s', () => {
    const c = loadConfig({ DATABASE_URL: primary })
    expect(c.QUERY_DATABASE_URL).toBeUndefined()
    expect(c.QUERY_REPLICA_LAG_NOTE_S).toBe(5)
  })

  it.each(['postgres://app@replica.internal:5432/app', 'postgresql://app:pw@ep-quiet-1234-ro.eu-central-1.aws.neon.tech/app?sslmode=require'])(
    'takes any postgres URL (%s)',
    (url) => {
      expect(loadConfig({ DATABASE_URL: primary, QUERY_DATABASE_URL: url, QUERY_REPLICA_LAG_NOTE_S: '30' })).toMatchObject({
        QUERY_DATABASE_URL: url,
        QUERY_REPLICA_LAG_NOTE_S: 30,
      })
    },
  )

  it.each([
    [{ DATABASE_URL: primary, QUERY_DATABASE_URL: 'https://replica.internal/app' }, /QUERY_DATABASE_URL: must be a postgres:\/\/ URL/],
    [{ DATABASE_URL: primary, QUERY_DATABASE_URL: 'replica.internal' }, /QUERY_DATABASE_URL: must be a postgres:\/\/ URL/],
    [{ QUERY_DATABASE_URL: 'postgres://replica.internal/app' }, /QUERY_DATABASE_URL: .*DATABASE_URL is not/],
    [{ DATABASE_URL: primary, QUERY_REPLICA_LAG_NOTE_S: '-1' }, /QUERY_REPLICA_LAG_NOTE_S/],
  ])('refuses %o at start-up, naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message)
  })
})

describe('replica lag', () => {
  it.each([
    [
      'caught up: everything received is replayed, however old the last transaction (an idle primary)',
      { in_recovery: true, caught_up: true, behind_s: 86_400, paused: false },
      { seconds: 0, inRecovery: true, paused: false },
    ],
    [
      'behind: the age of the last replayed transaction',
      { in_recovery: true, caught_up: false, behind_s: 12.5, paused: false },
      { seconds: 12.5, inRecovery: true, paused: false },
    ],
    ['replay paused with WAL waiting', { in_recovery: true, caught_up: false, behind_s: '42', paused: true }, { seconds: 42, inRecovery: true, paused: true }],
    [
      'not streaming (no WAL received): the age of the last replayed transaction',
      { in_recovery: true, caught_up: null, behind_s: 7, paused: false },
      { seconds: 7, inRecovery: true, paused: false },
    ],
    [
      'nothing replayed since it started: unknown',
      { in_recovery: true, caught_up: false, behind_s: null, paused: false },
      { seconds: null, inRecovery: true, paused: false },
    ],
    [
      'clock skew never makes it negative',
      { in_recovery: true, caught_up: false, behind_s: -0.2, paused: false },
      { seconds: 0, inRecovery: true, paused: false },
    ],
    [
      'a server not in recovery (a primary) has none',
      { in_recovery: false, caught_up: null, behind_s: null, paused: false },
      { seconds: 0, inRecovery: false, paused: false },
    ],
    ['text booleans (another driver)', { in_recovery: 't', caught_up: 'f', behind_s: '3.25', paused: 'f' }, { seconds: 3.25, inRecovery: true, paused: false }],
  ])('%s', (_name, row, expected) => {
    expect(readLag(row)).toEqual(expected)
  })

  it('the pages mention it only past the threshold, and say how far behind', () => {
    const lag = (seconds: number | null, paused = false) => ({ seconds, inRecovery: true, paused })
    expect(lagNote(lag(0), 5)).toBeNull()
    expect(lagNote(lag(5), 5)).toBeNull()
    expect(lagNote(lag(null), 5)).toBeNull()
    expect(lagNote(lag(6.4), 5)).toBe(
      'The data shown is about 6 s behind: this page reads a replica of the database that is catching up, so rows written in the last 6 s may not show yet.',
    )
    expect(lagNote(lag(600, true), 5)).toMatch(/^The data shown is about 10 min behind: .*whose replay is paused/)
    expect(lagNote(lag(1), 0)).toMatch(/about 1 s behind/)
  })

  it.each([
    [0.4, '0 s'],
    [59, '59 s'],
    [119, '119 s'],
    [300, '5 min'],
    [7199, '120 min'],
    [7200, '2 h'],
    [12_000, '3 h 20 min'],
  ])('formats %s s as %s', (seconds, text) => {
    expect(formatLag(seconds)).toBe(text)
  })

  it('is read at most once per cache period, failures included', async () => {
    let t = 0
    let reads = 0
    let fail = false
    const read = cachedFor(
      2000,
      async () => {
        reads++
        if (fail) throw new Error('down')
        return reads
      },
      () => t,
    )
    expect(await Promise.all([read(), read()])).toEqual([1, 1])
    t = 1999
    expect(await read()).toBe(1)
    t = 2000
    fail = true
    await expect(read()).rejects.toThrow('down')
    t = 3000
    await expect(read()).rejects.toThrow('down')
    expect(reads).toBe(2)
    t = 4000
    fail = false
    expect(await read()).toBe(3)
  })
})

describe('a replica that cannot be reached', () => {
  it.each([
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' })],
    ['57P01 (stopped: terminating connection due to administrator command)', pgError('57P01', 'terminating connection due to administrator command')],
    ['57P03 (starting up)', pgError('57P03', 'the database system is starting up')],
    ['08006 (connection failure)', pgError('08006', 'connection failure')],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
  ])('%s: 503 unavailable, a sentence that names the replica, Retry-After', (_name, error) => {
    const mapped = replicaFailure(markReplicaFailure(error))
    expect(mapped).toBeInstanceOf(AppError)
    expect(mapped).toMatchObject({ code: 'unavailable', status: 503, details: { retryAfterSeconds: REPLICA_RETRY_AFTER_S } })
    expect((mapped as AppError).message).toMatch(
      /^The query database \(the read replica at QUERY_DATABASE_URL\) is unavailable: .+\. .*Retry after 5 seconds\.$/,
    )
  })

  it.each([
    ['a refused statement', pgError('42501', 'permission denied for table saved_views')],
    ['a statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['a recovery conflict (retried by the query engine)', pgError('40001', 'canceling statement due to conflict with recovery')],
    ['an AppError', new AppError('invalid_input', 'bad filter')],
  ])('%s is left as it is', (_name, error) => {
    expect(markReplicaFailure(error)).toBe(error)
    expect(replicaFailure(error)).toBeNull()
  })

  it('readOnly() reads QUERY_DATABASE_URL: a closed port there is a 503 for queries, while the primary answers', async () => {
    const port = await freePort()
    const database = await createDatabase({ PGLITE_DIR: 'memory://', QUERY_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/app` })
    try {
      expect(database.replica).toMatchObject({ driver: 'node-postgres', target: `127.0.0.1:${port}/app` })
      const error = await readOnly({ database }, (session) => session.execute(sql`SELECT 1`)).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(AppError)
      expect(error).toMatchObject({ code: 'unavailable', status: 503, message: expect.stringMatching(/^The query database \(the read replica.*ECONNREFUSED/) })
      await expect(database.replica!.lag()).rejects.toThrow(/ECONNREFUSED/)
      expect(await database.db.execute(sql`SELECT 1 AS one`)).toMatchObject({ rows: [{ one: 1 }] })
    } finally {
      await database.close()
    }
  }, 60_000)

  it('a Neon host in QUERY_DATABASE_URL reads through the Neon driver (a Neon read replica), as DATABASE_URL would', async () => {
    // Both pools connect on first use: nothing needs to answer here.
    const database = await createDatabase({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/app`,
      QUERY_DATABASE_URL: 'postgres://app:pw@ep-quiet-1234-ro.eu-central-1.aws.neon.tech/app',
      PGLITE_DIR: 'memory://',
    })
    try {
      expect(database.driver).toBe('node-postgres')
      expect(database.replica).toMatchObject({ driver: 'neon-serverless', target: 'ep-quiet-1234-ro.eu-central-1.aws.neon.tech/app' })
    } finally {
      await database.close()
    }
  })

  it('without QUERY_DATABASE_URL there is no replica', async () => {
    // node-postgres connects on first use: nothing needs to answer here.
    const database = await createDatabase({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/app`, PGLITE_DIR: 'memory://' })
    try {
      expect(database.replica).toBeNull()
    } finally {
      await database.close()
    }
  })
})

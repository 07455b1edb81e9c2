import { randomUUID } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '@/lib/db/client'
import { dropExpiredPartitions, maintainPartitions } from '@/lib/datasets/partitions'
import { write as writeRequests } from '@/lib/datasets/requests/store'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, type RunningApp } from '../../test-support/app'
import { DATABASE_URL, report } from '../../test-support/fault'

// Partition maintenance beside readers, on Postgres: for 30 s a loop strands a row in the default
// partition of an old day, drains it (creating that day's partitions), drops the day again by
// retention and creates a day ahead, while dashboards and queries over a range that covers those
// days are read at 20 requests/s through the built server. No reader gets a 500 (a deadlock or
// serialization failure is retried once, then a 503 with Retry-After).

const DAY_MS = 86_400_000
const DURATION_MS = Number(process.env.FAULT_PARTITIONS_MS ?? 30_000)
const dayOf = (t: number) => new Date(Math.floor(t / DAY_MS) * DAY_MS)

let database: Database
let app: RunningApp
let key: TestKey
let jwks: JwksServer
const future: string[] = []

beforeAll(async () => {
  database = await createDatabase({ DATABASE_URL, PGLITE_DIR: 'memory://' })
  await database.migrate()
  key = await createTestKey('fault-partitions')
  jwks = await startJwksServer([key])
  app = await startApp({
    DATABASE_URL,
    ACCESS_JWKS_URL: jwks.url,
    ACCESS_AUDIENCE: TEST_AUDIENCE,
    ACCESS_ISSUER: TEST_ISSUER,
    RATE_LIMIT_MAX: '1000000',
    QUERY_RATE_LIMIT_MAX: '1000000',
    QUERY_MAX_RANGE_DAYS: '1000',
  })
})

afterAll(async () => {
  await app?.stop()
  await jwks?.close()
  // The days created ahead by the loop, parents first as the maintenance does.
  for (const name of future) await database.db.execute(sql.raw(`DROP TABLE IF EXISTS "${name}"`)).catch(() => {})
  await database?.close()
})

describe('partition maintenance beside readers', () => {
  it('drains, drops and creates day partitions in a loop for 30 s while dashboards and queries answer without a 500', async () => {
    const now = Date.now()
    const dateFrom = dayOf(now - 800 * DAY_MS)
      .toISOString()
      .slice(0, 10)
    const dateTo = dayOf(now).toISOString().slice(0, 10)
    const statuses = new Map<number | string, number>()
    const bodies500: string[] = []
    let retryAfterMissing = 0
    const read = async (i: number) => {
      const route = i % 2 === 0 ? 'dashboard' : 'query'
      try {
        const res = await fetch(`${app.url}/query/api/${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: app.url, 'cf-access-jwt-assertion': await signToken(key) },
          body: JSON.stringify({ dataset: 'requests', dateFrom, dateTo }),
        })
        const body = await res.text()
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status === 500) bodies500.push(body.slice(0, 300))
        // 503 (a statement that met a maintenance lock) and 429 (more statements at once than the
        // operator's bound queues) are the documented back-pressure: each says when to retry.
        if ((res.status === 503 || res.status === 429) && !res.headers.get('retry-after')) retryAfterMissing++
      } catch (error) {
        statuses.set('error', (statuses.get('error') ?? 0) + 1)
        bodies500.push(String(error))
      }
    }

    // Readers: one request every 50 ms, whatever the answers' latency.
    const inflight: Promise<void>[] = []
    let sent = 0
    const ticker = setInterval(() => inflight.push(read(sent++)), 50)

    // Maintenance: each round, a distinct old day and a distinct day ahead.
    const counts = { rounds: 0, drained: 0, dropped: 0, createdAhead: 0, maintenanceErrors: 0 }
    const end = Date.now() + DURATION_MS
    for (let i = 0; Date.now() < end; i++) {
      const old = now - (400 + i) * DAY_MS
      try {
        // A row of a day nobody created: it lands in the default partitions (rows and rollup).
        await writeRequests.insert(database.db, [
          { time: new Date(old), requestId: randomUUID(), method: 'GET', route: '/api/fault', query: '', status: 200, durationMs: 1 },
        ])
        counts.drained += (await maintainPartitions(database.db)).drained
        counts.dropped += (await dropExpiredPartitions(database.db, { now: new Date(old + 100 * DAY_MS) })).length
        const ahead = await maintainPartitions(database.db, { now: new Date(now + (40 + i) * DAY_MS), daysAhead: 0 })
        counts.createdAhead += ahead.created.length
        future.push(...ahead.created)
      } catch (error) {
        counts.maintenanceErrors++
        console.error('maintenance round failed', error)
      }
      counts.rounds++
    }
    clearInterval(ticker)
    await Promise.all(inflight)

    // Conflicts the server met and retried (lib/query/service.ts logs each one).
    const retried = app
      .logs()
      .split('\n')
      .filter((l) => l.includes('query met a transient database conflict')).length
    const unhandled = app
      .logs()
      .split('\n')
      .filter((l) => l.includes('unhandled error'))
      .map((l) => l.slice(0, 600))
    report('partition maintenance beside readers', {
      ...counts,
      requests: sent,
      statuses: Object.fromEntries(statuses),
      retryAfterMissing,
      queryConflictsRetried: retried,
      unhandled,
    })
    expect(counts.rounds).toBeGreaterThan(5)
    expect(counts.drained).toBeGreaterThan(0)
    expect(counts.dropped).toBeGreaterThan(0)
    expect(counts.createdAhead).toBeGreaterThan(0)
    expect(counts.maintenanceErrors).toBe(0)
    expect(sent).toBeGreaterThanOrEqual((DURATION_MS / 1000) * 20 * 0.7) // the ticker drifts on a loaded machine
    expect(bodies500).toEqual([])
    expect(statuses.get(500) ?? 0).toBe(0)
    expect(retryAfterMissing).toBe(0)
    // Every answer is a 200, or a 503 or 429 asking to retry.
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503 && s !== 429)).toEqual([])
  })
})

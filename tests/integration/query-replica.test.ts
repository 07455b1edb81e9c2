import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '@/lib/db/client'
import { writeRequestLog } from '@/lib/request-log/store'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'
import { probeReplica, startReplica, stopReplica } from '../../scripts/provision.mjs'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { freePort, startApp, type RunningApp } from '../../test-support/app'
import { pollUntil } from '../../test-support/fault'

// The query role on a real streaming replica (the integration-replica stage: scripts/provision.mjs
// makes it with pg_basebackup on 127.0.0.1:5433 and sets TEST_REPLICA_URL). The built server runs
// with DATABASE_URL on the primary and QUERY_DATABASE_URL on the same database of the replica:
// rows written on the primary are read through the replica; with its replay paused, new rows wait
// and the pages say how far behind the data is; stopped, the query API answers 503 naming it while
// the REST API and the saved views answer. Skipped without TEST_REPLICA_URL (the integration stage).

const replicaBase = process.env.TEST_REPLICA_URL
/** The provisioned replica's data directory: it may be stopped and started again (TEST_REPLICA_DIR; unset for a replica of the user's own). */
const replicaDir = process.env.TEST_REPLICA_DIR
const NAME = 'qd_replica'
const withName = (url: string) => Object.assign(new URL(url), { pathname: `/${NAME}` }).toString()
const primaryUrl = withName(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_test')
const replicaUrl = replicaBase ? withName(replicaBase) : ''
const LAG_NOTE_S = 2

let app: RunningApp
let key: TestKey
let jwks: JwksServer
let primary: Database
const tag = randomUUID()
const route = `/replica-test/${tag}`
const today = new Date().toISOString().slice(0, 10)

/** One statement on the replica as its superuser (pausing and resuming replay). */
async function onReplica<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: replicaUrl, connectionTimeoutMillis: 3000 })
  await client.connect()
  try {
    return (await client.query<T>(text)).rows
  } finally {
    await client.end()
  }
}

let written = 0
async function writeRows(n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({
    time: new Date(),
    requestId: `${tag}-${written + i}`,
    method: 'GET',
    route,
    status: 200,
    durationMs: 1,
    clientIp: '198.51.100.0',
    userAgent: 'replica-test',
  }))
  await writeRequestLog(primary.db, rows)
  written += n
}

const call = async (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, headers: { 'cf-access-jwt-assertion': await signToken(key), ...(init.headers as Record<string, string>) } })
const queryRows = () =>
  call(`${app.url}/query/api/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url },
    body: JSON.stringify({ dataset: 'requests', dateFrom: today, dateTo: today, filter: `route = '${route}'` }),
  })
const countRead = async () => {
  const res = await queryRows()
  return res.status === 200 ? ((await res.json()) as { count: number }).count : -res.status
}
/** The rows page's lag note, or null. */
const lagNoteOnPage = async () => {
  const html = await (await call(`${app.url}/query?dataset=requests`)).text()
  const match = /<div[^>]*data-testid="replica-lag"[^>]*>([^<]*)</.exec(html)
  return match ? { role: /role="status"/.test(match[0]), text: match[1].replaceAll('&#x27;', "'") } : null
}

describe.skipIf(!replicaBase)('the query role on a streaming replica', () => {
  beforeAll(async () => {
    await ensureDatabase(primaryUrl)
    primary = await createDatabase({ DATABASE_URL: primaryUrl, PGLITE_DIR: 'memory://' })
    await primary.migrate()
    // The database, its tables and query_ro's grants reach the replica by replication.
    await pollUntil(
      () => onReplica<{ t: string | null }>("SELECT to_regclass('request_log')::text AS t").catch(() => [{ t: null }]),
      (rows) => rows[0]?.t === 'request_log',
      30_000,
    )
    key = await createTestKey('rsa-query-replica')
    jwks = await startJwksServer([key])
    app = await startApp({
      DATABASE_URL: primaryUrl,
      QUERY_DATABASE_URL: replicaUrl,
      QUERY_REPLICA_LAG_NOTE_S: String(LAG_NOTE_S),
      ACCESS_JWKS_URL: jwks.url,
      ACCESS_AUDIENCE: TEST_AUDIENCE,
      ACCESS_ISSUER: TEST_ISSUER,
    })
  }, 120_000)

  afterAll(async () => {
    // Whatever failed: the replica replays and runs again for the next run.
    if (replicaDir) startReplica(replicaDir, binDirOf(replicaDir), Number(new URL(replicaUrl).port))
    await onReplica('SELECT pg_wal_replay_resume()').catch(() => {})
    await app?.stop()
    await jwks?.close()
    await primary?.close()
  })

  it('reads rows written on the primary through the replica', async () => {
    await writeRows(3)
    expect(await pollUntil(countRead, (n) => n === 3, 20_000, 200)).toBe(3)
    const health = await (await fetch(`${app.url}/api/health`)).json()
    expect(health.checks.queryReplica).toMatchObject({
      status: 'ok',
      required: false,
      detail: expect.stringMatching(/^node-postgres replica reachable at 127\.0\.0\.1:\d+\/qd_replica/),
    })
    expect(typeof health.checks.queryReplica.lagSeconds).toBe('number')
    const queryHealth = await call(`${app.url}/query/api/health`)
    expect(queryHealth.status).toBe(200)
    expect(await queryHealth.json()).toMatchObject({ status: 'ok', database: { status: 'ok' }, replica: { status: 'ok' } })
  })

  it('while replay is paused, new rows wait and the pages say how far behind the data is; caught up, they say nothing', async () => {
    // Caught up (it replayed all it received): no note, however long ago the last write was.
    expect(await pollUntil(lagNoteOnPage, (note) => note === null, 20_000)).toBeNull()
    await onReplica('SELECT pg_wal_replay_pause()')
    try {
      await writeRows(2)
      const note = await pollUntil(lagNoteOnPage, (n) => n !== null, 30_000)
      expect(note).toEqual({
        role: true,
        text: expect.stringMatching(/^The data shown is about \d+ s behind: this page reads a replica of the database whose replay is paused/),
      })
      // The primary has 5 rows; the query role reads the replica, which has replayed 3.
      expect(await countRead()).toBe(3)
      const lag = (await (await fetch(`${app.url}/api/health`)).json()).checks.queryReplica
      expect(lag).toMatchObject({ status: 'ok', detail: expect.stringMatching(/replay paused/) })
      expect(lag.lagSeconds).toBeGreaterThan(LAG_NOTE_S)
    } finally {
      await onReplica('SELECT pg_wal_replay_resume()')
    }
    expect(await pollUntil(countRead, (n) => n === 5, 20_000, 200)).toBe(5)
    expect(await pollUntil(lagNoteOnPage, (note) => note === null, 20_000)).toBeNull()
  })

  it('with the replica down, the query API answers 503 naming it; the REST API and the saved views answer', async () => {
    // The provisioned replica is stopped and started again; a replica of the user's own is left
    // alone, and a second server reads a closed port instead.
    let target = app
    if (replicaDir) stopReplica(replicaDir, binDirOf(replicaDir))
    else
      target = await startApp({
        DATABASE_URL: primaryUrl,
        QUERY_DATABASE_URL: withName(`postgres://postgres@127.0.0.1:${await freePort()}`),
        ACCESS_JWKS_URL: jwks.url,
        ACCESS_AUDIENCE: TEST_AUDIENCE,
        ACCESS_ISSUER: TEST_ISSUER,
      })
    try {
      const res = await call(`${target.url}/query/api/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: target.url },
        body: JSON.stringify({ dataset: 'requests', dateFrom: today, dateTo: today, filter: `route = '${route}'` }),
      })
      expect(res.status).toBe(503)
      expect(res.headers.get('retry-after')).toBe('5')
      expect(await res.json()).toMatchObject({
        error: { code: 'unavailable', message: expect.stringMatching(/^The query database \(the read replica at QUERY_DATABASE_URL\) is unavailable: /) },
      })
      // Saved views and history live on the primary.
      expect((await call(`${target.url}/query/api/saved`)).status).toBe(200)
      expect((await fetch(`${target.url}/api/generate/guid`)).status).toBe(200)
      expect((await fetch(`${target.url}/api/health?probe=live`)).status).toBe(200)
      // Health reads the replica's lag, cached for 2 s: a reading from before the stop may answer until then.
      const health = await pollUntil(
        async () => {
          const res = await fetch(`${target.url}/api/health`)
          return { status: res.status, body: await res.json() }
        },
        (h) => h.body.checks?.queryReplica?.status === 'down',
        10_000,
      )
      expect(health.status).toBe(200)
      expect(health.body).toMatchObject({
        status: 'degraded',
        checks: { database: { status: 'ok' }, queryReplica: { status: 'down', required: false } },
      })
      const queryHealth = await call(`${target.url}/query/api/health`)
      expect(queryHealth.status).toBe(503)
      expect(await queryHealth.json()).toMatchObject({ status: 'down', database: { status: 'ok' }, replica: { status: 'down' } })
    } finally {
      if (replicaDir) startReplica(replicaDir, binDirOf(replicaDir), Number(new URL(replicaUrl).port))
      else await target.stop()
    }
    if (!replicaDir) return
    // Back: the same server reads it again.
    expect((await probeReplica(replicaUrl, { waitMs: 30_000 })).state).toBe('ok')
    expect(await pollUntil(countRead, (n) => n === written, 30_000, 300)).toBe(written)
  })
})

/** The server binaries of the replica's major version (Debian's layout, as provisioned). */
function binDirOf(dir: string): string {
  return `/usr/lib/postgresql/${readFileSync(path.join(dir, 'PG_VERSION'), 'utf8').trim()}/bin`
}

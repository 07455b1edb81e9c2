import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { DATABASE_URL, pollUntil, proxied, report, requestLogRows } from '../../test-support/fault'
import { runLoad, stats } from '../../test-support/load'

// Postgres cut and hung under load, through a proxy in front of the real database: the REST API
// keeps answering, health says degraded with a 200, and once the database is back the request log
// holds exactly one row per answered request. Then SIGTERM while it hangs: the process exits within
// its grace period, the unstored entries are in the journal, and the next start writes them.

const spoolDirs: string[] = []
const newSpoolDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fault-spool-'))
  spoolDirs.push(dir)
  return dir
}
afterAll(() => spoolDirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** Every request of a scenario carries its own user agent, so its request-log rows can be counted. */
const load = (app: RunningApp, userAgent: string, durationMs: number) =>
  runLoad(() => fetch(`${app.url}/api/generate/guid`, { headers: { 'user-agent': userAgent } }), { connections: 8, durationMs })

describe.each(['cut', 'hang'] as const)('Postgres %s under load', (fault) => {
  it('keeps REST answering, reports degraded with 200, and loses no request-log row', async () => {
    const db = await proxied(DATABASE_URL)
    const app = await startApp({ DATABASE_URL: db.url, RATE_LIMIT_MAX: '1000000', REQUEST_LOG_SPOOL_DIR: newSpoolDir() })
    const userAgent = `fault-pg-${fault}-${randomUUID()}`
    try {
      const healthy = stats(await load(app, userAgent, 2000))
      // The fault starts once the log has caught up: a cut while an insert is in flight can lose
      // its acknowledgement after the commit, and the retry then writes those rows twice until the
      // write is idempotent by request id (a unique key with ON CONFLICT DO NOTHING, being added).
      await pollUntil(
        () => requestLogRows(userAgent),
        (r) => r.rows >= healthy.answered,
        30_000,
      )
      if (fault === 'cut') db.proxy.cut()
      else db.proxy.hang()
      const faulted = stats(await load(app, userAgent, 5000))
      const healthRes = await fetch(`${app.url}/api/health`)
      const health = await healthRes.json()
      db.proxy.restore()
      const answered = healthy.answered + faulted.answered + 1 // the health request is logged too
      const logged = await pollUntil(
        () => requestLogRows(userAgent),
        (r) => r.rows >= answered - 1,
        60_000,
      )
      report(`postgres ${fault}`, {
        healthyRequests: healthy.answered,
        healthyP99Ms: Math.round(healthy.p99),
        faultRequests: faulted.answered,
        faultFailures: faulted.failures,
        faultP99Ms: Math.round(faulted.p99),
        healthStatus: healthRes.status,
        health: health.status,
        rows: logged.rows,
        answered: answered - 1,
        duplicateIds: logged.duplicateIds,
      })
      expect(healthy.failures).toBe(0)
      expect(faulted.failures).toBe(0)
      expect(healthRes.status).toBe(200)
      expect(health.status).toBe('degraded')
      expect(health.checks.database.status).toBe('down')
      // The health request has another user agent: rows == REST requests answered.
      expect(logged.rows).toBe(answered - 1)
      expect(logged.duplicateIds).toBe(0)
      const requestIds = new Set([...healthy.samples, ...faulted.samples].map((s) => s.requestId))
      expect([...logged.ids].every((id) => requestIds.has(id))).toBe(true)
    } finally {
      await app.stop()
      await db.proxy.close()
    }
  })
})

describe('SIGTERM while Postgres hangs', () => {
  it('exits within the grace period with the entries spooled, and the next start writes them once', async () => {
    const GRACE_MS = 3000
    const FLUSH_DEADLINE_MS = 2000 // SHUTDOWN_SHIP_MS in lib/request-log/shipper.ts
    const spool = newSpoolDir()
    const db = await proxied(DATABASE_URL)
    const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '1000000', REQUEST_LOG_SPOOL_DIR: spool, SHUTDOWN_GRACE_MS: String(GRACE_MS) }
    const userAgent = `fault-pg-sigterm-${randomUUID()}`
    let app = await startApp(env)
    try {
      const before = stats(await load(app, userAgent, 1500))
      db.proxy.hang()
      const during = stats(await load(app, userAgent, 1500))
      const t0 = Date.now()
      app.signal('SIGTERM')
      const code = await app.exited
      const exitMs = Date.now() - t0
      const spooled = (readdirSync(spool, { recursive: true }) as string[]).filter((f) => f.endsWith('.ndjson'))
      db.proxy.restore()

      app = await startApp(env)
      const answered = before.answered + during.answered
      const logged = await pollUntil(
        () => requestLogRows(userAgent),
        (r) => r.rows >= answered,
        60_000,
      )
      const left = await pollUntil(
        async () => (readdirSync(spool, { recursive: true }) as string[]).filter((f) => f.endsWith('.ndjson')),
        (files) => files.length === 0,
        10_000,
      )
      report('sigterm with postgres hung', {
        answered,
        exitCode: code,
        exitMs,
        spoolFiles: spooled.length,
        rowsAfterReplay: logged.rows,
        duplicateIds: logged.duplicateIds,
        spoolFilesAfter: left.length,
      })
      expect(before.failures + during.failures).toBe(0)
      expect(code).toBe(0)
      expect(exitMs).toBeLessThan(GRACE_MS + FLUSH_DEADLINE_MS + 2000)
      expect(spooled.length).toBeGreaterThan(0)
      expect(logged.rows).toBe(answered)
      expect(logged.duplicateIds).toBe(0)
      expect(left).toEqual([])
    } finally {
      await app.stop()
      await db.proxy.close()
    }
  })
})

describe('Logpush ingest while Postgres is down or hangs', () => {
  it.each(['cut', 'hang'] as const)('%s: answers 503 with Retry-After within its deadline, and stores the batch once it is back', async (fault) => {
    const DEADLINE_MS = 2000
    const db = await proxied(DATABASE_URL)
    const app = await startApp({ DATABASE_URL: db.url, LOGPUSH_SECRET: 'fault-postgres-logpush-secret-0123456789', INGEST_DB_TIMEOUT_MS: String(DEADLINE_MS) })
    const batch = JSON.stringify({ Datetime: '2026-03-02T10:00:00Z', Action: 'allow', HTTPHost: 'example.org', RequestID: randomUUID() })
    const ingest = async () => {
      const t0 = Date.now()
      const res = await fetch(`${app.url}/query/ingest/http`, {
        method: 'POST',
        headers: { 'x-logpush-secret': 'fault-postgres-logpush-secret-0123456789' },
        body: batch,
      })
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json(), ms: Date.now() - t0 }
    }
    try {
      if (fault === 'cut') db.proxy.cut()
      else db.proxy.hang()
      const refused = await ingest()
      db.proxy.restore()
      const stored = await pollUntil(ingest, (r) => r.status === 200, 30_000, 1000)
      report(`ingest with postgres ${fault}`, {
        status: refused.status,
        retryAfter: refused.retryAfter,
        ms: refused.ms,
        deadlineMs: DEADLINE_MS,
        afterRestore: stored.status,
        inserted: stored.body.inserted,
      })
      expect(refused.status).toBe(503)
      expect(refused.retryAfter).toBe('30')
      expect(refused.body.error).toMatchObject({ code: 'unavailable', message: expect.stringContaining('Retry after 30 seconds') })
      expect(refused.ms).toBeLessThan(DEADLINE_MS + 3000)
      expect(stored.body).toMatchObject({ lines: 1, inserted: 1 })
    } finally {
      await app.stop()
      await db.proxy.close()
    }
  })
})

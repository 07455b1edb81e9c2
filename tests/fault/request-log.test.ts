import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { DATABASE_URL, pollUntil, proxied, report, requestLogRows } from '../../test-support/fault'
import { runLoad, stats, type Sample } from '../../test-support/load'

// The request log's journal (docs/request-log.md) against the built server under as much load as
// 16 connections get from it (hundreds of requests/s): a kill -9 loses nothing outside the group-commit window; a 90 s Postgres cut fails
// no request, keeps the liveness probe answering and ends with exactly one row per answered
// request within 60 s of the restore, the shipper catching up within seconds; a SIGTERM 60 s into
// an outage exits 0 within the grace period with every entry on disk, written once after a restart.
// The scenarios run one after the other: two servers under load at once would share two cores.

/** The group-commit window the docs state: 50 ms interval + one fdatasync + the timer's delay under load. */
const WINDOW_MS = 250
// Each scenario reports the load it reached (400–600 requests/s on an idle 2-core machine, the
// issue's load); FAULT_MIN_RATE makes a minimum a condition where the machine is known to reach it.
// By default a slower or busier machine runs every outcome check all the same: what is checked is
// what happens to the requests that were answered, not how fast they came (a rate is a benchmark).
const RATE_MIN = process.env.FAULT_MIN_RATE ? Number(process.env.FAULT_MIN_RATE) : null
const expectLoad = (requestsPerS: number) => {
  if (RATE_MIN !== null) expect(requestsPerS).toBeGreaterThanOrEqual(RATE_MIN)
}
const CONNECTIONS = 16

const spoolDirs: string[] = []
const newSpoolDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'fault-journal-'))
  spoolDirs.push(dir)
  return dir
}
afterAll(() => spoolDirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** Segment files anywhere under the journal directory (each instance has a subdirectory; a restart on another port adopts the old one's). */
const segments = (dir: string) => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ndjson'))

/** Every request of a scenario carries its own user agent, so its request-log rows can be counted. */
const load = (app: RunningApp, userAgent: string, durationMs: number) =>
  runLoad(() => fetch(`${app.url}/api/generate/guid`, { headers: { 'user-agent': userAgent } }), { connections: CONNECTIONS, durationMs })

/** A second and a half of the same load first (its rows carry another user agent), so the measured rate is not the JIT's warm-up. */
const warmUp = (app: RunningApp) => runLoad(() => fetch(`${app.url}/api/generate/guid`), { connections: CONNECTIONS, durationMs: 1500 })

const rate = (samples: Sample[]) => {
  const ok = samples.filter((s) => !s.error)
  if (ok.length < 2) return 0
  return ok.length / ((ok.at(-1)!.at - ok[0].at) / 1000)
}

/** The liveness probe every 250 ms until `stop()`; the longest time between two answers (or since the start). */
function probeLiveness(app: RunningApp) {
  let running = true
  let last = Date.now()
  let maxGapMs = 0
  let maxGapAt = 0
  let failures = 0
  const done = (async () => {
    while (running) {
      const t0 = Date.now()
      try {
        const res = await fetch(`${app.url}/api/health?probe=live`, { signal: AbortSignal.timeout(5000) })
        await res.arrayBuffer()
        if (res.status !== 200) failures++
        else {
          if (Date.now() - last > maxGapMs) {
            maxGapMs = Date.now() - last
            maxGapAt = Date.now()
          }
          last = Date.now()
        }
      } catch {
        failures++
      }
      await sleep(Math.max(0, 250 - (Date.now() - t0)))
    }
  })()
  return {
    async stop() {
      running = false
      await done
      return { maxGapMs: Math.max(maxGapMs, Date.now() - last), maxGapAt, failures }
    },
  }
}

describe('request log journal under faults', () => {
  it(
    'kill -9 under load with Postgres up: after a restart, every request answered outside the group-commit window has exactly one row',
    { timeout: 120_000 },
    async () => {
      const spool = newSpoolDir()
      const env = { DATABASE_URL, RATE_LIMIT_MAX: '1000000', REQUEST_LOG_SPOOL_DIR: spool }
      const userAgent = `fault-journal-kill-${randomUUID()}`
      let app = await startApp(env)
      try {
        await warmUp(app)
        const loading = load(app, userAgent, 5000)
        await sleep(4000)
        const killedAt = Date.now()
        app.signal('SIGKILL')
        await app.exited
        const samples = (await loading).filter((s) => !s.error && s.status > 0)
        const answered = stats(samples)
        app = await startApp(env)
        const durable = samples.filter((s) => s.at <= killedAt - WINDOW_MS)
        const logged = await pollUntil(
          () => requestLogRows(userAgent),
          (r) => durable.every((s) => r.ids.has(s.requestId!)),
          30_000,
        )
        const missing = durable.filter((s) => !logged.ids.has(s.requestId!))
        const lostInWindow = samples.filter((s) => s.at > killedAt - WINDOW_MS && !logged.ids.has(s.requestId!))
        report('journal kill -9', {
          requestsPerS: Math.round(rate(samples)),
          answered: answered.answered,
          beforeWindow: durable.length,
          missingOutsideWindow: missing.length,
          lostInsideWindow: lostInWindow.length,
          windowMs: WINDOW_MS,
          rows: logged.rows,
          duplicateIds: logged.duplicateIds,
        })
        expectLoad(rate(samples))
        expect(answered.failures).toBe(0)
        expect(missing).toEqual([])
        expect(logged.duplicateIds).toBe(0)
        // Nothing invented: at most the answered requests, plus the ones in flight at the kill (one per
        // connection) whose answer the server had written and journaled but the client never received.
        expect(logged.rows).toBeLessThanOrEqual(samples.length + CONNECTIONS)
      } finally {
        await app.stop()
      }
    },
  )

  it(
    'a 90 s Postgres cut under load: no failed request, liveness answers every second, one row per answered request within 60 s of the restore',
    { timeout: 240_000 },
    async () => {
      const CUT_MS = 90_000
      const db = await proxied(DATABASE_URL)
      const app = await startApp({ DATABASE_URL: db.url, RATE_LIMIT_MAX: '1000000', REQUEST_LOG_SPOOL_DIR: newSpoolDir() })
      const userAgent = `fault-journal-cut-${randomUUID()}`
      try {
        const probe = probeLiveness(app)
        const loading = load(app, userAgent, 3000 + CUT_MS + 8000)
        await sleep(3000)
        db.proxy.cut()
        const cutAt = Date.now()
        await sleep(CUT_MS)
        const health = await (await fetch(`${app.url}/api/health`)).json()
        db.proxy.restore()
        const restoredAt = Date.now()
        // Catch-up: nothing older than the restore waits in the journal any more (health's oldest
        // entry), while the load continues.
        let caughtUpMs: number | null = null
        const catchUp = (async () => {
          while (Date.now() - restoredAt < 60_000) {
            const h = await (await fetch(`${app.url}/api/health`)).json()
            const oldest = h.checks.requestLog?.requestLog?.spool?.oldestEntryAt
            if (oldest === null || (oldest && Date.parse(oldest) > restoredAt)) {
              caughtUpMs = Date.now() - restoredAt
              return
            }
            await sleep(250)
          }
        })()
        const samples = await loading
        const liveness = await probe.stop()
        await catchUp
        const all = stats(samples)
        const ids = new Set(samples.filter((s) => !s.error).map((s) => s.requestId))
        const logged = await pollUntil(
          () => requestLogRows(userAgent),
          (r) => r.rows >= all.answered,
          Math.max(1000, restoredAt + 60_000 - Date.now()),
        )
        const storedWithin = Date.now() - restoredAt
        const during = samples.filter((s) => s.at >= cutAt && s.at < restoredAt)
        report('journal postgres cut 90 s', {
          requestsPerS: Math.round(rate(samples)),
          requestsPerSDuringCut: Math.round(rate(during)),
          answered: all.answered,
          failures: all.failures,
          p99Ms: Math.round(all.p99),
          livenessMaxGapMs: liveness.maxGapMs,
          livenessMaxGapSinceRestoreMs: liveness.maxGapAt - restoredAt,
          livenessFailures: liveness.failures,
          journalAtRestore: health.checks.requestLog?.requestLog?.spool,
          shipperLagAtRestoreMs: health.checks.requestLog?.requestLog?.shipper?.lagMs,
          caughtUpMs,
          rows: logged.rows,
          storedWithinMs: storedWithin,
          duplicateIds: logged.duplicateIds,
        })
        expectLoad(rate(samples))
        expect(all.failures).toBe(0)
        expect(liveness.failures).toBe(0)
        expect(liveness.maxGapMs).toBeLessThanOrEqual(1000)
        expect(health.checks.requestLog.requestLog.spool.state).toBe('on')
        expect(health.checks.requestLog.requestLog.shipper.lagMs).toBeGreaterThan(CUT_MS / 2)
        expect(caughtUpMs).not.toBeNull()
        expect(caughtUpMs!).toBeLessThan(15_000)
        expect(logged.rows).toBe(all.answered)
        expect(logged.duplicateIds).toBe(0)
        expect(storedWithin).toBeLessThanOrEqual(60_000)
        expect([...logged.ids].every((id) => ids.has(id))).toBe(true)
      } finally {
        await app.stop()
        await db.proxy.close()
      }
    },
  )

  it('SIGTERM 60 s into an outage: exit 0 within the grace period, every row once after a restart', { timeout: 180_000 }, async () => {
    const GRACE_MS = 10_000
    const spool = newSpoolDir()
    const db = await proxied(DATABASE_URL)
    const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '1000000', REQUEST_LOG_SPOOL_DIR: spool, SHUTDOWN_GRACE_MS: String(GRACE_MS) }
    const userAgent = `fault-journal-sigterm-${randomUUID()}`
    let app = await startApp(env)
    try {
      await warmUp(app)
      db.proxy.cut()
      const loading = load(app, userAgent, 60_000)
      await sleep(60_000)
      const t0 = Date.now()
      app.signal('SIGTERM')
      const code = await app.exited
      const exitMs = Date.now() - t0
      const samples = (await loading).filter((s) => !s.error)
      const answered = samples.filter((s) => s.status > 0)
      const onDisk = segments(spool).length
      db.proxy.restore()
      app = await startApp(env)
      const logged = await pollUntil(
        () => requestLogRows(userAgent),
        (r) => r.rows >= answered.length,
        60_000,
      )
      const left = await pollUntil(
        async () => segments(spool),
        (files) => files.length === 0,
        10_000,
      )
      const ids = new Set(answered.map((s) => s.requestId))
      report('journal sigterm 60 s into an outage', {
        requestsPerS: Math.round(rate(answered)),
        answered: answered.length,
        failures: stats(samples).failures,
        exitCode: code,
        exitMs,
        graceMs: GRACE_MS,
        segmentsOnDisk: onDisk,
        rows: logged.rows,
        duplicateIds: logged.duplicateIds,
        segmentsAfter: left.length,
      })
      expectLoad(rate(answered))
      expect(stats(samples).failures).toBe(0)
      expect(code).toBe(0)
      expect(exitMs).toBeLessThan(GRACE_MS)
      expect(onDisk).toBeGreaterThan(0)
      expect(logged.rows).toBe(answered.length)
      expect(logged.duplicateIds).toBe(0)
      expect([...logged.ids].every((id) => ids.has(id))).toBe(true)
      expect(left).toEqual([])
    } finally {
      await app.stop()
      await db.proxy.close()
    }
  })
})

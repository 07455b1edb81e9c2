import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { DATABASE_URL, pollUntil, report, requestLogRows } from '../../test-support/fault'
import { runLoad, stats } from '../../test-support/load'

// Several instances started from one checkout share one journal directory (REQUEST_LOG_SPOOL_DIR,
// or the default beside PGLITE_DIR). Three of them under load with a 1 MB budget each: every
// answered request has exactly one row, none is dropped, health says `ok` with a lag of seconds at
// most; a second process on an instance's directory refuses to start naming the holder; what the
// instances leave at their SIGTERM is shipped by the next instance to start, whatever its port.

const CONNECTIONS = 12
const LOAD_MS = 15_000
const base = mkdtempSync(path.join(tmpdir(), 'fault-instances-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

interface RequestLogCheck {
  status: string
  requestLog: { spool: { dropped: number; bytes: number; segments: number }; shipper: { lagMs: number } }
}
const requestLogHealth = async (app: RunningApp): Promise<RequestLogCheck> =>
  (await (await fetch(`${app.url}/api/health`)).json()).checks.requestLog as RequestLogCheck

describe('several instances on one journal directory', () => {
  it(
    'lose no row under load with a 1 MB budget each, refuse a second holder of one instance, and ship what a stopped instance left',
    { timeout: 180_000 },
    async () => {
      const shared = path.join(base, 'journal')
      const env = { DATABASE_URL, RATE_LIMIT_MAX: '1000000', REQUEST_LOG_SPOOL_DIR: shared, REQUEST_LOG_SPOOL_MAX_MB: '1', SHUTDOWN_GRACE_MS: '2000' }
      const userAgent = `fault-instances-${randomUUID()}`
      const apps: RunningApp[] = []
      try {
        apps.push(await startApp(env), await startApp(env), await startApp({ ...env, REQUEST_LOG_INSTANCE: 'fault-c' }))

        // A second process on instance fault-c: refuses before it listens, naming the holder.
        const second = await startApp({ ...env, REQUEST_LOG_INSTANCE: 'fault-c' }).then(
          async (app) => {
            await app.stop()
            return 'started'
          },
          (error: Error) => error.message,
        )
        expect(second).toMatch(/app exited with 1/)
        expect(second).toContain(`The request-log journal directory ${path.join(shared, 'fault-c')} is in use by another process (pid ${apps[2].pid}`)

        // Load spread over the three; health sampled on each meanwhile.
        const healthSamples: RequestLogCheck[] = []
        let sampling = true
        const sampler = (async () => {
          while (sampling) {
            for (const app of apps) healthSamples.push(await requestLogHealth(app))
            await new Promise((r) => setTimeout(r, 1000))
          }
        })()
        const samples = await runLoad((i) => fetch(`${apps[i % apps.length].url}/api/generate/guid`, { headers: { 'user-agent': userAgent } }), {
          connections: CONNECTIONS,
          durationMs: LOAD_MS,
        })
        sampling = false
        await sampler
        const answered = samples.filter((s) => !s.error && s.status === 200)
        const instanceDirs = readdirSync(shared, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => e.name)
        // Load over, everything shipped: each instance counts what is on its own disk (only the
        // entries of these health requests, a few KB), not the segments the others wrote and shipped
        // (hundreds of KB here), and its lag is the real one, under the segment age plus a ship.
        const settled = (h: RequestLogCheck) => h.requestLog.spool.bytes < 20_000 && h.requestLog.spool.segments <= 2 && h.requestLog.shipper.lagMs < 2000
        const after = await pollUntil(
          () => Promise.all(apps.map(requestLogHealth)),
          (hs) => hs.every(settled),
          15_000,
          1000,
        )

        // SIGTERM all three, then one more instance on another port ships whatever they left.
        await Promise.all(apps.map((app) => app.stop()))
        apps.length = 0
        apps.push(await startApp(env))
        const logged = await pollUntil(
          () => requestLogRows(userAgent),
          (r) => answered.every((s) => r.ids.has(s.requestId!)),
          60_000,
        )
        const missing = answered.filter((s) => !logged.ids.has(s.requestId!))
        const maxLagMs = Math.max(...healthSamples.map((h) => h.requestLog.shipper.lagMs))
        report('three instances, one journal directory, 1 MB budget', {
          answered: answered.length,
          requestsPerS: Math.round(answered.length / (LOAD_MS / 1000)),
          rows: logged.rows,
          missing: missing.length,
          duplicateIds: logged.duplicateIds,
          dropped: after.map((h) => h.requestLog.spool.dropped),
          statuses: [...new Set(healthSamples.map((h) => h.status))],
          maxLagMs,
          afterLoad: after.map((h) => ({ bytes: h.requestLog.spool.bytes, segments: h.requestLog.spool.segments, lagMs: h.requestLog.shipper.lagMs })),
          instanceDirs,
        })
        expect(stats(samples).failures).toBe(0)
        expect(instanceDirs).toHaveLength(3)
        expect(missing).toEqual([])
        expect(logged.duplicateIds).toBe(0)
        expect(logged.rows).toBeLessThanOrEqual(samples.length + CONNECTIONS)
        expect(after.map((h) => h.requestLog.spool.dropped)).toEqual([0, 0, 0])
        expect(after.every(settled)).toBe(true)
        expect(healthSamples.every((h) => h.status === 'ok')).toBe(true)
        // The real lag: seconds at most while the database takes everything, never the age of another instance's segments.
        expect(maxLagMs).toBeLessThan(5000)
      } finally {
        await Promise.all(apps.map((app) => app.stop()))
      }
    },
  )
})

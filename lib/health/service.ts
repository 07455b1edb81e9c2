import 'server-only'
import pkg from '@/package.json'
import { config } from '@/lib/config'
import { getReadyDatabase } from '@/lib/db/client'
import { getRedis, withTimeout } from '@/lib/redis'
import type { HealthCheck, HealthResult } from '@/lib/health/schemas'

const STARTED = Date.now()
const CHECK_TIMEOUT_MS = 1000

export type DependencyCheck = () => Promise<[name: string, check: HealthCheck] | null>

async function timed(required: boolean, probe: () => Promise<string>): Promise<HealthCheck> {
  const t0 = performance.now()
  try {
    const detail = await probe()
    return { status: 'ok', required, latencyMs: Math.round((performance.now() - t0) * 100) / 100, detail }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return { status: 'down', required, latencyMs: null, detail: reason }
  }
}

const rateLimitStore: DependencyCheck = async () => {
  const redis = getRedis()
  if (!redis) return ['rateLimitStore', { status: 'ok', required: false, latencyMs: 0, detail: 'in-memory (single process)' }]
  // The limiter fails open, so a dead store degrades the service rather than stopping it.
  const check = await timed(false, async () => {
    await redis.ping(CHECK_TIMEOUT_MS)
    return `${redis.kind} store reachable`
  })
  if (check.status === 'down') check.detail = `${redis.kind} store unreachable (${check.detail}); rate limiting fails open`
  return ['rateLimitStore', check]
}

// The query application's database: required when DATABASE_URL is set; the built-in PGlite is not.
const database: DependencyCheck = async () => {
  const check = await timed(Boolean(config.DATABASE_URL), async () => {
    const { driver, db } = await withTimeout(getReadyDatabase(), CHECK_TIMEOUT_MS)
    await withTimeout(db.execute('SELECT 1'), CHECK_TIMEOUT_MS)
    return `${driver} reachable, migrations applied`
  })
  return ['database', check]
}

/** Dependency checks; subsystems with a dependency (the database) add theirs here. */
export const dependencyChecks: DependencyCheck[] = [rateLimitStore, database]

export async function getHealth(): Promise<{ result: HealthResult; httpStatus: 200 | 503 }> {
  const entries = (await Promise.all(dependencyChecks.map((check) => check()))).filter((e) => e !== null)
  const checks = Object.fromEntries(entries)
  const allOk = entries.every(([, c]) => c.status === 'ok')
  const requiredDown = entries.some(([, c]) => c.required && c.status === 'down')
  return {
    result: {
      status: allOk ? 'ok' : 'degraded',
      version: pkg.version,
      uptimeSeconds: Math.round((Date.now() - STARTED) / 1000),
      time: new Date().toISOString(),
      checks,
    },
    httpStatus: requiredDown ? 503 : 200,
  }
}

export { timed as timedCheck, database as databaseCheck }

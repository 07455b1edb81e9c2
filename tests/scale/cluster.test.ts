import { setTimeout as sleep } from 'node:timers/promises'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import dnsPacket from 'dns-packet'
import IORedis from 'ioredis'
import pg from 'pg'
import type { Agent } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureDatabase } from '@/scripts/ensure-database.mjs'
import { loadZones } from '../../test-support/dns-zones'
import { answerQuery } from '../../test-support/fake-doh'
import { pollUntil, requestLogRows } from '../../test-support/fault'
import { percentile } from '../../test-support/load'
import { startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import {
  allUp,
  atWindowStart,
  clientAddresses,
  clientAt,
  clusterEnv,
  get,
  SERVER_NAMES,
  startCluster,
  type Answer,
  type Cluster,
  type ServerState,
} from '../../test-support/scale'

// Three instances of the one build behind HAProxy (deploy/haproxy.cfg) on one Postgres and one
// Redis, as docs/deployment.md "Several instances" runs them: all three on one journal directory,
// each under its own REQUEST_LOG_INSTANCE, with a 1 MB journal budget. Clients come from many
// loopback addresses (127.0.0.x), so the balancer's X-Forwarded-For carries real, distinct clients.
// Each scenario prints the numbers it asserted (`[scale] …`).

const DATABASE_URL = process.env.SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_scale'
const REDIS_URL = process.env.SCALE_REDIS_URL ?? 'redis://127.0.0.1:6379/10'
const LOAD_S = Number(process.env.SCALE_LOAD_SECONDS ?? 120)
const JOURNAL_LOAD_S = 20
const CLIENTS = 64
/** Per client address: 15 requests a second at most is 450 a window, under the quota of 500 whatever the machine's speed. */
const MAX_PER_SECOND = 15
const QUOTA = 500
const WINDOW_S = 30
const DNS_DELAY_MS = 1000
const PATH = '/api/generate/guid'

const report = (scenario: string, numbers: Record<string, unknown>) => console.log(`[scale] ${scenario}: ${JSON.stringify(numbers)}`)
const journal = mkdtempSync(path.join(tmpdir(), 'scale-journal-'))
const agents: Agent[] = []
const agentAt = (address: string, connections?: number) => {
  const agent = clientAt(address, connections)
  agents.push(agent)
  return agent
}

let cluster: Cluster
let doh: FakeUpstream
let env: Record<string, string>

beforeAll(async () => {
  await ensureDatabase(DATABASE_URL)
  const redis = new IORedis(REDIS_URL)
  await redis.flushdb()
  redis.disconnect()
  // A resolver that takes a second per answer, so a domain-posture run lasts long enough for the
  // three cron calls below to meet inside it.
  const zone = loadZones('platform')
  doh = await startFakeUpstream(async (req, res) => {
    const wire = req.method === 'GET' ? Buffer.from(req.query.get('dns') ?? '', 'base64url') : req.body
    await sleep(DNS_DELAY_MS)
    res.writeHead(200, { 'content-type': 'application/dns-message' })
    res.end(answerQuery(zone, dnsPacket.decode(wire)))
  })
  env = {
    ...clusterEnv(DATABASE_URL, REDIS_URL),
    REQUEST_LOG_SPOOL_DIR: journal,
    REQUEST_LOG_SPOOL_MAX_MB: '1',
    DOH_URL: `${doh.url}/dns-query`,
    PLATFORM_DOMAINS: 'platform.example',
    MTA_STS_URL_TEMPLATE: 'http://127.0.0.1:9/{domain}/.well-known/mta-sts.txt',
    UPSTREAM_TIMEOUT_MS: '5000',
    UPSTREAM_RETRIES: '0',
  }
  cluster = await startCluster(env, (i) => ({ REQUEST_LOG_INSTANCE: `scale-${i + 1}` }))
}, 180_000)

afterAll(async () => {
  await cluster?.stop()
  await Promise.all(agents.map((a) => a.close()))
  await doh?.close()
  rmSync(journal, { recursive: true, force: true })
})

const statusCounts = (answers: Answer[]) => {
  const counts: Record<string, number> = {}
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1
  return counts
}

/** `count` requests from one agent, `concurrency` at a time. */
async function burst(agent: Agent, count: number, concurrency: number, headers: () => Record<string, string>): Promise<Answer[]> {
  const answers: Answer[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) answers.push(await get(agent, `${cluster.balancer.url}${PATH}`, headers()))
    }),
  )
  return answers
}

interface Tagged extends Answer {
  sentId: string
}

/**
 * Closed-loop load from `addresses`, one connection each, each request with its own request id
 * (X-Request-Id, which the request log keeps) and `userAgent`, until `done()`.
 */
async function loadFrom(addresses: string[], userAgent: string, done: () => boolean): Promise<Tagged[]> {
  const answers: Tagged[] = []
  const minGapMs = 1000 / MAX_PER_SECOND
  await Promise.all(
    addresses.map(async (address) => {
      const agent = agentAt(address, 1)
      while (!done()) {
        const sentId = randomUUID()
        const t0 = performance.now()
        answers.push({ ...(await get(agent, `${cluster.balancer.url}${PATH}`, { 'x-request-id': sentId, 'user-agent': userAgent })), sentId })
        const wait = minGapMs - (performance.now() - t0)
        if (wait > 0) await sleep(wait)
      }
    }),
  )
  return answers
}

/** Polls until every answered request has its row (or a minute passes); the rows, counted. */
async function rowsOf(userAgent: string, answered: Tagged[]) {
  const t0 = Date.now()
  const logged = await pollUntil(
    () => requestLogRows(userAgent, DATABASE_URL),
    (r) => answered.every((a) => r.ids.has(a.sentId)),
    60_000,
  )
  return { ...logged, missing: answered.filter((a) => !logged.ids.has(a.sentId)).length, shippedAfterMs: Date.now() - t0 }
}

const sessionsOf = (servers: ServerState[]) => Object.fromEntries(servers.map((s) => [s.name, s.sessions]))

describe('three instances behind HAProxy on one Postgres and one Redis', () => {
  it('counts one client’s quota once across the instances: 700 requests, exactly 500 answered and 200 limited', async () => {
    const agent = agentAt('127.0.0.100', 8)
    const userAgent = `scale-quota-${randomUUID()}`
    await atWindowStart(WINDOW_S, 20)
    const before = sessionsOf(await cluster.balancer.servers())
    const answers = await burst(agent, QUOTA + 200, 8, () => ({ 'user-agent': userAgent }))
    const after = sessionsOf(await cluster.balancer.servers())
    const perInstance = SERVER_NAMES.map((name) => after[name] - before[name])
    report('one client, 700 requests over three instances', { statuses: statusCounts(answers), perInstance })
    expect(statusCounts(answers)).toEqual({ 200: QUOTA, 429: 200 })
    // Round robin: each instance answered about a third of them, so each counted into the one shared quota.
    for (const n of perInstance) expect(n).toBeGreaterThan(150)
  })

  it('keeps every instance in rotation while clients flood with the balancer’s own address in X-Forwarded-For', async () => {
    // In rotation: UP, or `UP 1/2` after a check that failed once; a check answered with a status
    // other than 200 (a 429 from the flood, a 503) is L7STS.
    // One client connects from the balancer's own address (its hop and the forged one are both
    // trusted: the client is 127.0.0.1), one from another (the forged hop is left of its own).
    const flooders = [agentAt('127.0.0.1', 8), agentAt('127.0.0.101', 8)]
    const forged = { 'x-forwarded-for': '127.0.0.1', 'user-agent': `scale-forged-${randomUUID()}` }
    await atWindowStart(WINDOW_S, 20)
    const stats: ServerState[][] = []
    const health: number[] = []
    let flooding = true
    const sampler = (async () => {
      while (flooding) {
        stats.push(await cluster.balancer.servers())
        // Readiness asked the way HAProxy asks it, from 127.0.0.1, on each instance.
        for (const app of cluster.instances) {
          const res = await fetch(`${app.url}/api/health`)
          await res.body?.cancel()
          health.push(res.status)
        }
        await sleep(200)
      }
    })()
    const answers = await Promise.all(flooders.map((agent) => burst(agent, 600, 8, () => forged)))
    flooding = false
    await sampler
    // A few more checks after the flood: none of them failed either.
    await sleep(3000)
    const after = await cluster.balancer.servers()
    report('600 requests each from two clients forging X-Forwarded-For: 127.0.0.1', {
      statuses: answers.map(statusCounts),
      statsSamples: stats.length,
      allUpInEverySample: stats.every(allUp),
      statesSeen: [...new Set(stats.flat().map((s) => `${s.status} ${s.check}`))],
      healthStatuses: statusCounts(health.map((status) => ({ status, requestId: null, ms: 0, at: 0 }))),
      after: after.map((s) => `${s.name} ${s.status} ${s.check}`),
    })
    // Each client has its own quota, the forged hop changes nothing.
    for (const a of answers) expect(statusCounts(a)).toEqual({ 200: QUOTA, 429: 100 })
    expect(stats.length).toBeGreaterThan(3)
    expect(stats.every((servers) => servers.length === 3 && servers.every((s) => s.status.startsWith('UP') && s.check !== 'L7STS'))).toBe(true)
    expect(health.every((s) => s === 200)).toBe(true)
    expect(allUp(after)).toBe(true)
    expect(after.every((s) => s.check === 'L7OK')).toBe(true)
  })

  it('runs a cron job once when all three instances are called for it at once', async () => {
    const db = new pg.Client({ connectionString: DATABASE_URL })
    await db.connect()
    try {
      const since = new Date()
      const answers = await Promise.all(
        cluster.instances.map(async (app) => {
          const res = await fetch(`${app.url}/api/cron/domain-posture`, { headers: { authorization: `Bearer ${env.CRON_SECRET}` } })
          return { status: res.status, ...((await res.json()) as { outcome: string; startedAt: string; durationMs: number }) }
        }),
      )
      const { rows } = await db.query<{ outcome: string; n: string }>(
        `SELECT outcome, count(*) AS n FROM job_runs WHERE job = 'domain-posture' AND started_at >= $1 GROUP BY outcome ORDER BY outcome`,
        [since],
      )
      const { rows: checks } = await db.query<{ runs: string }>(`SELECT count(DISTINCT checked_at) AS runs FROM domain_checks WHERE checked_at >= $1`, [since])
      report('GET /api/cron/domain-posture on all three at once', {
        answers: answers.map((a) => `${a.status} ${a.outcome} ${Math.round(a.durationMs)} ms`),
        jobRuns: Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)])),
        domainCheckRuns: Number(checks[0].runs),
      })
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
      expect(answers.map((a) => a.outcome).sort()).toEqual(['skipped', 'skipped', 'succeeded'])
      expect(Object.fromEntries(rows.map((r) => [r.outcome, Number(r.n)]))).toEqual({ skipped: 2, succeeded: 1 })
      expect(Number(checks[0].runs)).toBe(1)
    } finally {
      await db.end()
    }
  })

  it('loses no request-log row with three instances on one journal directory and a 1 MB budget each', async () => {
    const userAgent = `scale-journal-${randomUUID()}`
    const end = Date.now() + JOURNAL_LOAD_S * 1000
    const samples: { dropped: number; status: string }[] = []
    let loading = true
    const sampler = (async () => {
      while (loading) {
        for (const app of cluster.instances) {
          const h = (await (await fetch(`${app.url}/api/health`)).json()) as {
            checks: { requestLog: { status: string; requestLog: { spool: { dropped: number } } } }
          }
          samples.push({ dropped: h.checks.requestLog.requestLog.spool.dropped, status: h.checks.requestLog.status })
        }
        await sleep(1000)
      }
    })()
    const answers = await loadFrom(clientAddresses(CLIENTS, 1), userAgent, () => Date.now() > end)
    loading = false
    await sampler
    const answered = answers.filter((a) => a.status > 0)
    const logged = await rowsOf(userAgent, answered)
    const instanceDirs = readdirSync(journal, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort()
    report('three instances, one journal directory, 1 MB budget each', {
      requests: answers.length,
      requestsPerS: Math.round(answers.length / JOURNAL_LOAD_S),
      statuses: statusCounts(answers),
      rows: logged.rows,
      missing: logged.missing,
      duplicateIds: logged.duplicateIds,
      shippedAfterMs: logged.shippedAfterMs,
      maxDropped: Math.max(...samples.map((s) => s.dropped)),
      requestLogStatuses: [...new Set(samples.map((s) => s.status))],
      instanceDirs,
    })
    expect(statusCounts(answers)).toEqual({ 200: answers.length })
    expect(answers.every((a) => a.requestId === a.sentId)).toBe(true)
    expect(logged.missing).toBe(0)
    expect(logged.duplicateIds).toBe(0)
    expect(logged.rows).toBe(answered.length)
    expect(samples.every((s) => s.dropped === 0 && s.status === 'ok')).toBe(true)
    expect(instanceDirs).toEqual(['scale-1', 'scale-2', 'scale-3'])
  })

  it(`answers every request of ${CLIENTS} clients while each instance is restarted in turn, and logs each exactly once`, async () => {
    const userAgent = `scale-rolling-${randomUUID()}`
    const start = Date.now()
    let restarted = false
    const loading = loadFrom(clientAddresses(CLIENTS), userAgent, () => restarted && Date.now() - start > LOAD_S * 1000)
    const restarts: Awaited<ReturnType<Cluster['restart']>>[] = []
    try {
      await sleep(Math.min(10_000, (LOAD_S * 1000) / 6))
      for (const i of SERVER_NAMES.keys()) {
        restarts.push(await cluster.restart(i))
        await sleep(3000)
      }
    } finally {
      restarted = true
    }
    const answers = await loading
    const loadS = (Date.now() - start) / 1000
    const failures = answers.filter((a) => a.status === 0 || a.status >= 500)
    const answered = answers.filter((a) => a.status > 0)
    const times = answers.map((a) => a.at).sort((a, b) => a - b)
    const longestGapMs = Math.max(...times.slice(1).map((t, i) => t - times[i]))
    const logged = await rowsOf(userAgent, answered)
    const servers = await cluster.balancer.servers()
    report(`${CLIENTS} clients for ${Math.round(loadS)} s, each instance restarted in turn`, {
      requests: answers.length,
      requestsPerS: Math.round(answers.length / loadS),
      statuses: statusCounts(answers),
      failures: failures.length,
      firstFailures: failures.slice(0, 3).map((f) => f.error ?? f.status),
      p50Ms: Math.round(
        percentile(
          answers.map((a) => a.ms),
          50,
        ),
      ),
      p99Ms: Math.round(
        percentile(
          answers.map((a) => a.ms),
          99,
        ),
      ),
      slowestMs: Math.round(Math.max(...answers.map((a) => a.ms))),
      longestGapBetweenAnswersMs: longestGapMs,
      restarts: restarts.map((r) => ({ exit: r.exitCode, downAfterMs: r.downAfterMs, stoppedMs: r.stoppedMs, upAgainMs: r.upMs })),
      rows: logged.rows,
      missing: logged.missing,
      duplicateIds: logged.duplicateIds,
      shippedAfterMs: logged.shippedAfterMs,
      servers: servers.map((s) => `${s.name} ${s.status}`),
    })
    expect(failures).toEqual([])
    expect(statusCounts(answers)).toEqual({ 200: answers.length })
    expect(answers.every((a) => a.requestId === a.sentId)).toBe(true)
    // Each instance drained: HAProxy had it DOWN before it exited, and it exited 0.
    for (const r of restarts) {
      expect(r.exitCode).toBe(0)
      expect(r.downAfterMs).not.toBeNull()
    }
    expect(logged.missing).toBe(0)
    expect(logged.duplicateIds).toBe(0)
    expect(logged.rows).toBe(answered.length)
    expect(allUp(servers)).toBe(true)
  })
})

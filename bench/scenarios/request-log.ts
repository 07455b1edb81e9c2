// The request-log path (docs/request-log.md), each figure against a baseline of the same run:
// - entries/s sustained into Postgres with the journal (group commit to local segments, shipped
//   in bulk) against the memory writer (batches from memory, no disk), the same offered load,
//   every entry stored before the clock stops;
// - what one group commit costs (write + fdatasync of the lines queued in one interval), against
//   the interval itself;
// - the request path's p99 and throughput on the built server with the journal against the same
//   server with the memory writer (REST requests, autocannon).
import { setTimeout as sleep } from 'node:timers/promises'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { load, type BenchRow, type Scenario } from '../lib'
import { startApp } from '../../test-support/app'
import type { RequestLogEntry } from '../../lib/http/request-log'
import { createDurableRequestLog } from '../../lib/request-log/shipper'
import { COMMIT_MS, createSpool } from '../../lib/request-log/spool'
import { createRequestLogWriter, type RequestLogWriter } from '../../lib/request-log/writer'
import { ensureDatabase } from '../../scripts/ensure-database.mjs'

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_bench'
const RATE = Number(process.env.BENCH_REQUEST_LOG_RATE ?? 20_000) // entries offered per second
const SECONDS = Number(process.env.BENCH_REQUEST_LOG_SECONDS ?? 6)
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)
const secondsSince = (t0: number) => (performance.now() - t0) / 1000

const entry = (requestId: string): RequestLogEntry => ({
  time: new Date(),
  requestId,
  method: 'GET',
  route: '/api/health',
  query: '',
  status: 200,
  durationMs: 1.5,
  clientIp: '203.0.113.7',
  country: 'FR',
  userAgent: 'bench-request-log',
  referrer: null,
  apiKeyPresent: false,
  rateLimited: false,
  mcpTool: null,
})

/** Offers RATE entries/s for SECONDS, then waits until every one is stored; entries stored per second of the whole run. */
async function sustained(pool: pg.Pool, writer: RequestLogWriter, prefix: string, settled: () => boolean, drain: () => Promise<void>) {
  const offered = RATE * SECONDS
  const t0 = performance.now()
  let sent = 0
  let recordMs = 0
  while (sent < offered) {
    const due = Math.min(offered, Math.floor((secondsSince(t0) + 0.01) * RATE))
    const r0 = performance.now()
    for (; sent < due; sent++) writer.record(entry(`${prefix}${sent}`))
    recordMs += performance.now() - r0
    await sleep(10)
  }
  const count = async () =>
    Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM request_log WHERE request_id LIKE $1', [`${prefix}%`])).rows[0].n)
  while (!settled() && secondsSince(t0) < SECONDS + 120) await drain()
  await writer.stop()
  let stored = await count()
  for (let i = 0; i < 100 && stored < offered; i++) {
    await sleep(100)
    stored = await count()
  }
  const elapsed = secondsSince(t0)
  return { rate: stored / elapsed, stored, offered, lagS: elapsed - SECONDS, recordUs: (recordMs * 1000) / offered }
}

const scenario: Scenario = {
  name: 'request-log',
  async run(): Promise<BenchRow[]> {
    await ensureDatabase(DATABASE_URL)
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 })
    const db = drizzle({ client: pool })
    const rows: BenchRow[] = []
    const dirs: string[] = []
    const tempDir = () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-request-log-'))
      dirs.push(dir)
      return dir
    }
    try {
      await migrate(db, { migrationsFolder: 'drizzle' })
      const group = 'request log into Postgres'
      const run = `${Date.now()}`

      // 1. Sustained entries/s: the journal against the memory writer, the same offered load.
      const spool = createSpool(tempDir(), 1024 * 1024 * 1024)
      const journal = createDurableRequestLog({ spool, db: async () => db as never })
      const withJournal = await sustained(
        pool,
        journal,
        `bench-rl-journal-${run}-`,
        () => spool.status().segments === 0 && spool.status().uncommitted === 0,
        () => journal.flush(),
      )
      const memory = createRequestLogWriter({ db: async () => db as never, flushMs: 250 })
      const withMemory = await sustained(
        pool,
        memory,
        `bench-rl-memory-${run}-`,
        () => memory.status().pending === 0,
        () => memory.flush(),
      )
      rows.push({
        group,
        name: 'entries/s sustained, journal + shipper (group commit)',
        value: withJournal.rate,
        unit: 'entries/s',
        baseline: withMemory.rate,
        baselineName: 'memory writer (no disk)',
        note: `${RATE.toLocaleString('en')}/s offered for ${SECONDS} s; stored ${withJournal.stored}/${withJournal.offered} (journal), ${withMemory.stored}/${withMemory.offered} (memory); all stored ${withJournal.lagS.toFixed(2)} s / ${withMemory.lagS.toFixed(2)} s after the last; record() ${withJournal.recordUs.toFixed(2)} µs / ${withMemory.recordUs.toFixed(2)} µs per entry`,
      })

      // 2. One group commit: the lines of one interval at 1,000 requests/s, written and fdatasync'd.
      {
        const dir = tempDir()
        const s = createSpool(dir, 1024 * 1024 * 1024, { commitMs: 60_000 })
        const perCommit = Math.max(1, Math.round((1000 * COMMIT_MS) / 1000))
        const times: number[] = []
        for (let i = 0; i < 200; i++) {
          for (let j = 0; j < perCommit; j++) s.append(entry(`c${i}-${j}`) as unknown as Record<string, unknown>)
          const t0 = performance.now()
          await s.commit()
          times.push(performance.now() - t0)
        }
        await s.close()
        times.sort((a, b) => a - b)
        const p = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]
        rows.push({
          group,
          name: 'one group commit (write + fdatasync), median',
          value: p(0.5),
          unit: 'ms',
          baseline: COMMIT_MS,
          baselineName: 'the commit interval',
          note: `${perCommit} lines a commit (1,000 requests/s); p99 ${p(0.99).toFixed(2)} ms; 200 commits; off the event loop (libuv thread pool)`,
        })
      }

      // 3. The request path: the built server with the journal against the same server with the memory writer.
      const PATH = '/api/generate/guid'
      const measure = async (env: Record<string, string>) => {
        const app = await startApp({ DATABASE_URL, RATE_LIMIT_MAX: '1000000000', ...env })
        try {
          return await load(app.url + PATH, { connections: 10, durationS: DURATION_S })
        } finally {
          await app.stop()
        }
      }
      // ABBA order, averaged: a shared machine's drift and the first start's warm-up fall on both.
      const m1 = await measure({})
      const j1 = await measure({ REQUEST_LOG_SPOOL_DIR: tempDir() })
      const j2 = await measure({ REQUEST_LOG_SPOOL_DIR: tempDir() })
      const m2 = await measure({})
      const mean = (a: typeof m1, b: typeof m1) => ({
        requestsPerSec: (a.requestsPerSec + b.requestsPerSec) / 2,
        p50Ms: (a.p50Ms + b.p50Ms) / 2,
        p99Ms: (a.p99Ms + b.p99Ms) / 2,
        non2xx: a.non2xx + b.non2xx,
      })
      const journaled = mean(j1, j2)
      const inMemory = mean(m1, m2)
      const paired = `${PATH}, journal vs memory writer`
      rows.push({
        group: paired,
        name: 'p99 latency',
        value: journaled.p99Ms,
        unit: 'ms',
        baseline: inMemory.p99Ms,
        baselineName: 'memory writer',
        note: `p50 ${journaled.p50Ms} ms vs ${inMemory.p50Ms} ms; 10 connections, ${DURATION_S} s, two runs each in ABBA order, averaged`,
      })
      rows.push({
        group: paired,
        name: 'requests/s',
        value: journaled.requestsPerSec,
        unit: 'req/s',
        baseline: inMemory.requestsPerSec,
        baselineName: 'memory writer',
        note: `non-2xx ${journaled.non2xx} / ${inMemory.non2xx}`,
      })
      return rows
    } finally {
      await pool.end()
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    }
  },
}

export default scenario

import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { startTcpProxy, type TcpProxy } from './tcp-proxy'

// Shared set-up of the fault stage: the real Redis and Postgres of the test run, each reachable
// through a loopback proxy of its own that the scenario can cut or hang.

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/1'
export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_test'

/** A proxy in front of the service at `url`, and the same URL pointing through it. */
export async function proxied(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const u = new URL(url)
  const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port || (u.protocol === 'redis:' ? 6379 : 5432)) })
  u.hostname = '127.0.0.1'
  u.port = String(proxy.port)
  return { proxy, url: u.toString() }
}

/** Request-log rows written with `userAgent` (each scenario sends its own), and request ids seen twice. */
export async function requestLogRows(userAgent: string, databaseUrl = DATABASE_URL): Promise<{ rows: number; duplicateIds: number; ids: Set<string> }> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ request_id: string; n: string }>(
      'SELECT request_id, count(*) AS n FROM request_log WHERE user_agent = $1 GROUP BY request_id',
      [userAgent],
    )
    return {
      rows: rows.reduce((sum, r) => sum + Number(r.n), 0),
      duplicateIds: rows.filter((r) => Number(r.n) > 1).length,
      ids: new Set(rows.map((r) => r.request_id)),
    }
  } finally {
    await client.end()
  }
}

/** Polls `probe` until `done` says yes or `timeoutMs` passes; returns the last value. */
export async function pollUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, everyMs = 500): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (done(value) || Date.now() > end) return value
    await sleep(everyMs)
  }
}

/** Resident set size of a process, in MB (Linux). */
export async function rssMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024
}

/** One line the fault stage prints per scenario, so the numbers it asserted show in the test output. */
export function report(scenario: string, numbers: Record<string, unknown>) {
  console.log(`[fault] ${scenario}: ${JSON.stringify(numbers)}`)
}

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Condition, describeCondition, isMet } from '@/lib/saved-views/condition'
import { decide, presentAlert, recordPostureChanges, runAlerts } from '@/lib/alerts/job'
import { parseViewState, resolveViewRange } from '@/lib/view/view-state'
import { deliverPending } from '@/lib/alerts/deliver'
import { write as writeAlerts } from '@/lib/datasets/alerts/store'
import type { Database } from '@/lib/db/client'
import { write as writeRequests } from '@/lib/datasets/requests/store'
import type { RequestLogRow } from '@/lib/request-log/store'
import { saveView, setCondition } from '@/lib/saved-views/views'
import { runDashboard, runQuery } from '@/lib/query/service'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Alerts end to end on each driver, against a loopback webhook receiver: a saved view's condition
// fires (one notification), stays quiet while it stays true, resolves, re-fires within the
// cooldown (recorded, not sent), catches up once the cooldown is over; a receiver that answers 503
// or hangs up gets retried with backoff, every attempt recorded, and the notification is delivered
// on a later run: what the receiver got is exactly the alerts rows that were to be sent, in order.

let testDatabase: TestDatabase
let database: Database
const q = async (query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows

type Mode = 'up' | '503' | 'hangup'
const receiver = { mode: 'up' as Mode, received: [] as Array<Record<string, unknown>>, requests: 0, server: null as Server | null, url: '' }

const MIN = 60_000
const t0 = Math.floor(Date.now() / MIN) * MIN - 60 * MIN
const at = (minutes: number) => new Date(t0 + minutes * MIN)
const OWNER = 'email:ana@example.com'
let viewId = ''
const delivery = () => ({ url: receiver.url, backoffMs: 20, attempts: 3, budgetMs: 20_000 })
const run = (minutes: number) => runAlerts(database, { dryRun: false }, { now: () => at(minutes), cooldownS: 1800, delivery: delivery() })

let seq = 0
async function requests(minutes: number, n: number, status: number) {
  const rows: RequestLogRow[] = Array.from({ length: n }, (_, i) => ({
    time: new Date(at(minutes).getTime() + i),
    requestId: `r-${seq++}`,
    method: 'GET',
    route: '/api/health',
    status,
    durationMs: 3,
  }))
  await writeRequests.insert(database.db, rows)
}

const alertRows = (key: string) =>
  q(sql`SELECT event, delivery, attempts, last_error, attempt_log, delivered_at FROM alerts WHERE alert_key = ${key} ORDER BY at, id`)

beforeAll(async () => {
  testDatabase = await openTestDatabase('alerts', { fresh: true })
  database = testDatabase.database
  await database.migrate()
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      receiver.requests++
      if (receiver.mode === 'hangup') return req.socket.destroy()
      if (receiver.mode === '503') return res.writeHead(503).end('down for maintenance')
      receiver.received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((r) => receiver.server!.listen(0, '127.0.0.1', r))
  receiver.url = `http://127.0.0.1:${(receiver.server!.address() as AddressInfo).port}/hook`
}, 120_000)

afterAll(async () => {
  await new Promise((r) => receiver.server?.close(r))
  await testDatabase?.close()
})

describe('alert conditions (pure)', () => {
  it('validates a condition and says what it means', () => {
    const c = Condition.parse({ metric: 'error_rate', op: 'above', threshold: 0.05, windowMinutes: 15 })
    expect(describeCondition(c)).toBe('Error rate above 5 % over the last 15 min')
    expect(isMet(c, 0.05)).toBe(false)
    expect(isMet(c, 0.051)).toBe(true)
    expect(Condition.safeParse({ metric: 'error_rate', op: 'above', threshold: 5, windowMinutes: 15 }).success).toBe(false)
    expect(Condition.safeParse({ metric: 'count', op: 'below', threshold: 1, windowMinutes: 0 }).success).toBe(false)
    expect(describeCondition({ metric: 'count', op: 'below', threshold: 1, windowMinutes: 120 })).toBe('Row count below 1 row over the last 2 h')
  })

  it('decides: fire, quiet while firing, resolve at once, re-fire held back by the cooldown, catch up after it', () => {
    const opts = { cooldownS: 1800, webhook: true }
    const none = { last: null, told: null, lastFiring: null }
    expect(decide(false, none, at(0), opts)).toBeNull()
    expect(decide(true, none, at(0), opts)).toEqual({ event: 'fired', delivery: 'pending' })
    const fired = { last: 'fired', told: { event: 'fired', at: at(0) }, lastFiring: { event: 'fired', at: at(0) } }
    expect(decide(true, fired, at(1), opts)).toBeNull()
    expect(decide(false, fired, at(2), opts)).toEqual({ event: 'resolved', delivery: 'pending' })
    const resolved = { ...fired, last: 'resolved', told: { event: 'resolved', at: at(2) } }
    expect(decide(true, resolved, at(3), opts)).toEqual({ event: 'fired', delivery: 'suppressed' })
    const heldBack = { ...resolved, last: 'fired' }
    expect(decide(true, heldBack, at(20), opts)).toBeNull()
    expect(decide(true, heldBack, at(30), opts)).toEqual({ event: 'fired', delivery: 'pending' })
    expect(decide(false, heldBack, at(20), opts)).toEqual({ event: 'resolved', delivery: 'suppressed' })
    expect(decide(true, none, at(0), { ...opts, webhook: false })).toEqual({ event: 'fired', delivery: 'disabled' })
  })
})

describe('notification links', () => {
  const views = new Map([['view:v1', { id: 'v1', name: 'API errors', page: 'rows' as const, view: 'dataset=requests&range=1h&filter=status+%3E%3D+500' }]])
  const at = new Date('2026-11-20T10:00:00.000Z')

  it('point at the query page on PUBLIC_BASE_URL’s origin, with the window that fired pinned', () => {
    const { name, link } = presentAlert('https://api.example.com/api', { kind: 'condition', name: null, alertKey: 'view:v1', at, windowMinutes: 15 }, views)
    expect(name).toBe('API errors')
    const url = new URL(link!)
    expect(url.origin + url.pathname).toBe('https://api.example.com/query')
    expect(Object.fromEntries(url.searchParams)).toEqual({
      dataset: 'requests',
      filter: 'status >= 500',
      from: '2026-11-20T09:45:00.000Z',
      to: '2026-11-20T10:00:00.000Z',
    })
    // The page reads the pinned window as the custom range it is.
    const { state, notices } = parseViewState(Object.fromEntries(url.searchParams))
    expect(notices).toEqual([])
    expect(resolveViewRange(state)).toEqual({ dateFrom: '2026-11-20T09:45:00.000Z', dateTo: '2026-11-20T10:00:00.000Z' })
  })

  it('pin a posture change’s week of checks', () => {
    const { link } = presentAlert('http://localhost:3000', { kind: 'posture', name: "o'brien.example", alertKey: 'posture:x', at, windowMinutes: null }, views)
    const url = new URL(link!)
    expect(url.searchParams.get('filter')).toBe("domain = 'o''brien.example' AND changed = true")
    expect([url.searchParams.get('from'), url.searchParams.get('to'), url.searchParams.has('range')]).toEqual([
      '2026-11-13T10:00:00.000Z',
      '2026-11-20T10:01:00.000Z',
      false,
    ])
  })
})

describe(`alerts job (${driverName})`, { timeout: 60_000 }, () => {
  it('a condition is stored on a saved view; an error rate needs a dataset with an error filter', async () => {
    const saved = await saveView(OWNER, { name: 'API errors', page: 'rows', view: 'dataset=requests&range=24h' }, database.db)
    viewId = saved.id
    const set = await setCondition(OWNER, saved.id, { condition: { metric: 'error_rate', op: 'above', threshold: 0.1, windowMinutes: 60 } }, database.db)
    expect(set.condition).toEqual({ metric: 'error_rate', op: 'above', threshold: 0.1, windowMinutes: 60, consecutiveWindows: 1, destinations: [] })
    const network = await saveView(OWNER, { name: 'Network', page: 'rows', view: 'dataset=network&range=24h' }, database.db)
    await expect(
      setCondition(OWNER, network.id, { condition: { metric: 'error_rate', op: 'above', threshold: 0.1, windowMinutes: 60 } }, database.db),
    ).rejects.toThrow(/no error rate/)
    // Someone else's view cannot be given a condition.
    await expect(setCondition('email:eve@example.com', saved.id, { condition: null }, database.db)).rejects.toThrow(/no saved view/)
  })

  it('fires once, stays quiet while firing, resolves at once', async () => {
    await requests(-5, 5, 200)
    await requests(-5, 5, 500)
    const first = await run(0)
    expect(first.counts).toMatchObject({ conditions: 1, evaluated: 1, fired: 1, delivered: 1, pending: 0 })
    expect(receiver.received).toHaveLength(1)
    expect(receiver.received[0]).toMatchObject({
      kind: 'condition',
      event: 'fired',
      key: `view:${viewId}`,
      name: 'API errors',
      value: 0.5,
      condition: { dataset: 'requests', metric: 'error_rate', op: 'above', threshold: 0.1, windowMinutes: 60 },
    })
    expect(String(receiver.received[0].summary)).toContain('error rate 50 % is above 10 % over the last 1 h')
    expect(String(receiver.received[0].link)).toMatch(/\/query\?dataset=requests/)
    // The webhook names the view; the alerts dataset, which every query user reads, keeps only its id.
    const [row] = await q(sql`SELECT view_id, name, summary FROM alerts WHERE alert_key = ${`view:${viewId}`}`)
    expect(row).toEqual({
      view_id: viewId,
      name: null,
      summary: `Saved view ${viewId} is firing: error rate 50 % is above 10 % over the last 1 h (API requests).`,
    })

    const quiet = await run(1)
    expect(quiet.counts).toMatchObject({ fired: 0, resolved: 0, delivered: 0 })
    expect(receiver.received).toHaveLength(1)

    await requests(1, 100, 200)
    const resolved = await run(2)
    expect(resolved.counts).toMatchObject({ resolved: 1, delivered: 1 })
    expect(receiver.received.map((b) => b.event)).toEqual(['fired', 'resolved'])
  })

  it('a re-fire within the cooldown is recorded but not sent; once the cooldown is over the receiver is told', async () => {
    await requests(2.5, 50, 500)
    const held = await run(3)
    expect(held.counts).toMatchObject({ fired: 1, suppressed: 1, delivered: 0 })
    expect(receiver.received).toHaveLength(2)
    expect(await run(20)).toMatchObject({ counts: { fired: 0, delivered: 0 } })
    const caughtUp = await run(31)
    expect(caughtUp.counts).toMatchObject({ fired: 1, suppressed: 0, delivered: 1 })
    expect(receiver.received.map((b) => b.event)).toEqual(['fired', 'resolved', 'fired'])
    expect((await alertRows(`view:${viewId}`)).map((r) => `${r.event}/${r.delivery}`)).toEqual([
      'fired/delivered',
      'resolved/delivered',
      'fired/suppressed',
      'fired/delivered',
    ])
  })

  it('a receiver that is down: retried with backoff, every attempt recorded, kept pending, delivered on a later run', async () => {
    await requests(31.5, 1000, 200)
    receiver.mode = '503'
    const before = receiver.requests
    const down = await run(32)
    expect(down.counts).toMatchObject({ resolved: 1, delivered: 0, failed: 1, pending: 1, attempts: 3 })
    expect(receiver.requests - before).toBe(3)
    let [last] = (await alertRows(`view:${viewId}`)).slice(-1)
    expect(last).toMatchObject({ event: 'resolved', delivery: 'pending', attempts: 3, delivered_at: null })
    expect(String(last.last_error)).toMatch(/503/)
    expect((last.attempt_log as Array<{ status: number; ok: boolean }>).map((a) => [a.ok, a.status])).toEqual([
      [false, 503],
      [false, 503],
      [false, 503],
    ])

    receiver.mode = 'hangup'
    const hungUp = await run(33)
    expect(hungUp.counts).toMatchObject({ resolved: 0, delivered: 0, pending: 1 })
    ;[last] = (await alertRows(`view:${viewId}`)).slice(-1)
    expect(last).toMatchObject({ delivery: 'pending', attempts: 6 })
    expect((last.attempt_log as Array<{ status: number | null; error: string }>)[5]).toMatchObject({
      status: null,
      error: expect.stringMatching(/could not be reached/),
    })

    receiver.mode = 'up'
    const back = await run(34)
    expect(back.counts).toMatchObject({ delivered: 1, pending: 0 })
    ;[last] = (await alertRows(`view:${viewId}`)).slice(-1)
    expect(last).toMatchObject({ delivery: 'delivered', attempts: 7, last_error: null })
    expect(last.delivered_at).not.toBeNull()
    // Nothing lost, nothing twice: the receiver holds exactly the rows that were to be sent.
    const sent = await q(sql`SELECT event FROM alerts WHERE alert_key = ${`view:${viewId}`} AND delivery <> 'suppressed' ORDER BY at, id`)
    expect(receiver.received.map((b) => b.event)).toEqual(sent.map((r) => r.event))
    expect(receiver.received.map((b) => b.event)).toEqual(['fired', 'resolved', 'fired', 'resolved'])
  })

  it('domain-posture changes are notified the same way, with the same cooldown per domain', async () => {
    const checkedAt = at(35)
    const recorded = await recordPostureChanges(
      database.db,
      [
        { checkedAt, domain: 'example.com', checkName: 'overall', change: 'grade B → A' },
        { checkedAt, domain: 'example.com', checkName: 'spf', change: 'status warn → pass' },
      ],
      { cooldownS: 1800, webhook: true },
    )
    expect(recorded).toBe(1)
    const sent = await run(36)
    expect(sent.counts.delivered).toBe(1)
    expect(receiver.received.at(-1)).toMatchObject({ kind: 'posture', event: 'changed', key: 'posture:example.com', name: 'example.com' })
    expect(String(receiver.received.at(-1)!.summary)).toBe('example.com: mail and DNS posture changed: grade B → A; spf: status warn → pass.')
    expect(String(receiver.received.at(-1)!.link)).toContain('dataset=domain_checks')
    await recordPostureChanges(database.db, [{ checkedAt: at(40), domain: 'example.com', checkName: 'overall', change: 'grade A → B' }], {
      cooldownS: 1800,
      webhook: true,
    })
    expect((await alertRows('posture:example.com')).map((r) => r.delivery)).toEqual(['delivered', 'suppressed'])
  })

  it('sends the Slack body when the format says so', async () => {
    await recordPostureChanges(database.db, [{ checkedAt: at(41), domain: 'example.org', checkName: 'dmarc', change: 'status pass → fail' }], {
      cooldownS: 1800,
      webhook: true,
    })
    await runAlerts(database, { dryRun: false }, { now: () => at(42), cooldownS: 1800, delivery: { ...delivery(), format: 'slack' } })
    const body = receiver.received.at(-1) as { text: string; blocks: unknown[] }
    expect(body.text).toBe('CHANGED: example.org: example.org: mail and DNS posture changed: dmarc: status pass → fail.')
    expect(body.blocks).toHaveLength(2)
  })

  it('a dry run measures but records and sends nothing', async () => {
    await requests(42.5, 500, 500)
    const count = async () => Number((await q(sql`SELECT count(*) AS n FROM alerts`))[0].n)
    const before = await count()
    const dry = await runAlerts(database, { dryRun: true }, { now: () => at(43), cooldownS: 1800, delivery: delivery() })
    expect(dry.evaluations[0]).toMatchObject({ name: 'API errors', firing: true, recorded: 'fired (suppressed)' })
    expect(await count()).toBe(before)
  })

  it('a run that used up its time for conditions names the ones left for the next run', async () => {
    const late = await runAlerts(database, { dryRun: true }, { now: () => at(43), cooldownS: 1800, delivery: delivery(), evaluationBudgetMs: -1 })
    expect(late.counts).toMatchObject({ conditions: 1, evaluated: 0, errors: 1 })
    expect(late.errors).toEqual([`saved view ${viewId}: not measured, the run's -0.001 s for conditions was used up`])
  })

  it('alerts is a dataset: quick filters on rows, and the dashboard from the rollup agrees with the rows', async () => {
    const range = { dataset: 'alerts' as const, dateFrom: at(-60).toISOString(), dateTo: at(120).toISOString() }
    const suppressed = await runQuery({ ...range, filter: "delivery = 'suppressed'" }, { database })
    expect(suppressed.count).toBe(2)
    const fromRollup = await runDashboard(range, { database })
    const fromRows = await runDashboard(range, { database, rollups: false })
    const data = (panels: typeof fromRows.panels) => panels.map(({ sql: _sql, source: _source, ...rest }) => rest)
    expect(fromRollup.panels.every((p) => p.source === 'rollup')).toBe(true)
    expect(data(fromRollup.panels)).toEqual(data(fromRows.panels))
    const kinds = fromRows.panels.find((p) => p.id === 'by_kind') as { rows: Array<{ value: unknown; count: number }> }
    expect(Object.fromEntries(kinds.rows.map((r) => [String(r.value), r.count]))).toEqual({ condition: 5, posture: 3 })
  })

  it('never copies a private view’s name or filter into the alerts dataset or the job’s errors', async () => {
    await requests(44, 5, 200)
    const secret = await saveView(
      OWNER,
      {
        name: 'Secret project',
        page: 'rows',
        view: `dataset=requests&range=24h&filter=${encodeURIComponent("route = '/api/health' OR route = '/secret-thing'")}`,
      },
      database.db,
    )
    await setCondition(OWNER, secret.id, { condition: { metric: 'count', op: 'above', threshold: 0, windowMinutes: 60 } }, database.db)
    let nested = 'route'
    for (let i = 0; i < 9; i++) nested = `replace(${nested}, '/', '//////////')`
    const hostile = await saveView(
      OWNER,
      { name: 'Hostile', page: 'rows', view: `dataset=requests&range=24h&filter=${encodeURIComponent(`${nested} = 'x'`)}` },
      database.db,
    )
    await setCondition(OWNER, hostile.id, { condition: { metric: 'count', op: 'above', threshold: 0, windowMinutes: 60 } }, database.db)
    const result = await run(45)
    expect(result.evaluations.find((e) => e.id === secret.id)).toMatchObject({ firing: true, recorded: 'fired (pending)' })
    // The hostile filter is refused before it runs; the error names the view by id and leaves its filter out.
    expect(result.errors).toContain(`saved view ${hostile.id}: its filter was refused (its owner sees why on the view’s page)`)
    const rows = JSON.stringify(await q(sql`SELECT * FROM alerts WHERE alert_key = ${`view:${secret.id}`}`))
    expect(rows).toContain(secret.id)
    expect(rows).not.toContain('Secret project')
    expect(rows).not.toContain('secret-thing')
    expect(JSON.stringify(result.errors)).not.toContain('replace')
    expect(receiver.received.at(-1)).toMatchObject({ key: `view:${secret.id}`, name: 'Secret project' })
  })

  it('never sends demonstration rows, and counts as pending only what is really waiting', async () => {
    const demo = {
      kind: 'condition',
      event: 'fired',
      alertKey: 'view:demo',
      name: 'Demo',
      summary: 'Demonstration alert (fired).',
      delivery: 'pending',
      attempts: 1,
      demo: true,
    }
    await writeAlerts.insert(
      database.db,
      [0, 1, 2].map((i) => ({ ...demo, at: at(-30 + i) })),
    )
    const before = receiver.requests
    expect(await deliverPending(database.db, () => ({ name: 'Demo', link: null }), delivery())).toEqual({ delivered: 0, failed: 0, pending: 0, attempts: 0 })
    expect(receiver.requests).toBe(before)
  })
})

import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Condition, describeCondition, effectiveThreshold, isAllowedWebhookUrl, isMet } from '@/lib/saved-views/condition'
import { judgeWindows, measure, runAlerts } from '@/lib/alerts/job'
import { jobSchedules, nextRun, parseCron } from '@/lib/jobs/schedule'
import { alertDestinations, destinationLabel } from '@/lib/alerts/destinations'
import type { Database } from '@/lib/db/client'
import { write as writeRequests } from '@/lib/datasets/requests/store'
import type { RequestLogRow } from '@/lib/request-log/store'
import { deleteSaved, listEvaluations, saveView, setCondition } from '@/lib/saved-views/views'
import { driverName, openTestDatabase, type TestDatabase } from '@/test-support/query-database'

// Consecutive windows, several destinations and the evaluation history, on each driver, against
// two loopback webhook receivers: a condition over 1-minute windows that must hold in 3 windows in
// a row fires on the third, resolves at the first window where it does not hold; a notification goes
// to each destination, a destination that is down is retried alone on the next run, and every
// evaluation leaves one row with what each destination answered.

let testDatabase: TestDatabase
let database: Database
const q = async (query: ReturnType<typeof sql>) => ((await database.db.execute(query)) as unknown as { rows: Array<Record<string, unknown>> }).rows

interface Receiver {
  mode: 'up' | '503'
  received: Array<Record<string, unknown>>
  server: Server
  url: string
}
async function startReceiver(): Promise<Receiver> {
  const r = { mode: 'up', received: [] } as unknown as Receiver
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (r.mode === '503') return res.writeHead(503).end('down')
      r.received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((done) => r.server.listen(0, '127.0.0.1', done))
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`
  return r
}

const MIN = 60_000
const t0 = Math.floor(Date.now() / MIN) * MIN - 30 * MIN
const at = (minutes: number) => new Date(t0 + minutes * MIN)
const OWNER = 'email:windows@example.com'
let json: Receiver
let slack: Receiver
let fallback: Receiver

/** A destination's label: channel, origin and the start of the URL's SHA-256 (never its path). */
const label = (format: string, url: string) => `${format} → ${new URL(url).origin} #${createHash('sha256').update(url).digest('hex').slice(0, 6)}`

let seq = 0
async function requests(minutes: number, n: number, route: string, daysBefore = 0) {
  const rows: RequestLogRow[] = Array.from({ length: n }, (_, i) => ({
    time: new Date(at(minutes).getTime() - daysBefore * 86_400_000 + i),
    requestId: `w-${seq++}`,
    method: 'GET',
    route,
    status: 200,
    durationMs: 3,
  }))
  await writeRequests.insert(database.db, rows)
}
const run = (minutes: number) =>
  runAlerts(
    database,
    { dryRun: false },
    { now: () => at(minutes), cooldownS: 0, delivery: { url: fallback.url, backoffMs: 20, attempts: 2, budgetMs: 20_000 } },
  )

beforeAll(async () => {
  testDatabase = await openTestDatabase('alert-windows', { fresh: true })
  database = testDatabase.database
  await database.migrate()
  ;[json, slack, fallback] = await Promise.all([startReceiver(), startReceiver(), startReceiver()])
}, 120_000)

afterAll(async () => {
  for (const r of [json, slack, fallback]) await new Promise((done) => r?.server.close(done))
  await testDatabase?.close()
})

describe('consecutive windows (pure)', () => {
  it('fires only when every one of the last N windows held; once firing, resolves at the first newest window that does not', () => {
    expect(judgeWindows([true], 1, false)).toEqual({ firing: true, held: 1 })
    expect(judgeWindows([true, true], 3, false)).toEqual({ firing: false, held: 2 })
    expect(judgeWindows([true, false], 3, false)).toEqual({ firing: false, held: 1 })
    expect(judgeWindows([false], 3, false)).toEqual({ firing: false, held: 0 })
    expect(judgeWindows([true, true, true], 3, false)).toEqual({ firing: true, held: 3 })
    expect(judgeWindows([true], 3, true)).toEqual({ firing: true, held: 1 })
    expect(judgeWindows([false], 3, true)).toEqual({ firing: false, held: 0 })
  })

  it('is validated with the condition: 1 by default, 1 to 10, said in the description', () => {
    const base = { metric: 'count', op: 'above', threshold: 10, windowMinutes: 1 }
    expect(Condition.parse(base)).toMatchObject({ consecutiveWindows: 1, destinations: [] })
    expect(Condition.safeParse({ ...base, consecutiveWindows: 0 }).success).toBe(false)
    expect(Condition.safeParse({ ...base, consecutiveWindows: 11 }).success).toBe(false)
    expect(Condition.safeParse({ ...base, consecutiveWindows: 2.5 }).success).toBe(false)
    expect(describeCondition(Condition.parse({ ...base, consecutiveWindows: 3 }))).toBe('Row count above 10 rows over each of the last 3 windows of 1 min')
  })
})

describe('departure from earlier days (pure)', () => {
  it('reads the threshold as a relative change from the baseline, validated as one, and says so', () => {
    const c = Condition.parse({ metric: 'count', op: 'above', threshold: 0.5, windowMinutes: 15, compareDays: 7 })
    expect(describeCondition(c)).toBe('Row count 50 % above the same window of the last 7 days (their median), over the last 15 min')
    expect([effectiveThreshold(c, 200), isMet(c, 300, 200), isMet(c, 301, 200)]).toEqual([300, false, true])
    const below = Condition.parse({ metric: 'error_rate', op: 'below', threshold: 0.25, windowMinutes: 5, compareDays: 1 })
    expect([effectiveThreshold(below, 0.08), isMet(below, 0.05, 0.08)]).toEqual([0.06, true])
    expect(describeCondition(below)).toBe('Error rate 25 % below the same window of the day before, over the last 5 min')
    expect(Condition.safeParse({ ...below, threshold: 1.5 }).error?.issues[0].message).toBe(
      'a departure is a relative change: 0.5 = 50 % below, at most 1 (100 %)',
    )
    expect(Condition.safeParse({ ...c, compareDays: 8 }).success).toBe(false)
  })
})

describe('destinations (pure)', () => {
  it('accept https anywhere and http on loopback only, without credentials, each once, at most 5', () => {
    const cases: Array<[string, boolean]> = [
      ['https://hooks.slack.com/services/T/B/x', true],
      ['http://127.0.0.1:9000/hook', true],
      ['http://localhost/hook', true],
      ['http://[::1]:8080/', true],
      ['http://hooks.example.com/hook', false],
      ['http://10.0.0.5/hook', false],
      ['ftp://example.com/x', false],
      ['https://user:pw@example.com/', false],
      ['not a url', false],
    ]
    expect(cases.map(([url]) => [url, isAllowedWebhookUrl(url)])).toEqual(cases)
    const base = { metric: 'count', op: 'above', threshold: 1, windowMinutes: 5 }
    const d = (url: string) => ({ url })
    expect(Condition.parse({ ...base, destinations: [d('https://a.example/1')] }).destinations).toEqual([{ url: 'https://a.example/1', format: 'auto' }])
    expect(Condition.safeParse({ ...base, destinations: [d('http://a.example/1')] }).error?.issues[0].message).toMatch(/https URL/)
    expect(Condition.safeParse({ ...base, destinations: [d('https://a.example/1'), d('https://a.example/1')] }).success).toBe(false)
    expect(Condition.safeParse({ ...base, destinations: [1, 2, 3, 4, 5, 6].map((i) => d(`https://a.example/${i}`)) }).success).toBe(false)
    expect(Condition.safeParse({ ...base, destinations: [{ url: 'https://a.example/1', format: 'teams' }] }).success).toBe(false)
  })

  it('default to the configured webhook and are named without their path', () => {
    const fallbackTarget = [{ url: 'https://hooks.slack.com/services/T/B/secret', format: 'auto' }]
    expect(alertDestinations({ destinations: [] }, fallbackTarget)).toEqual(fallbackTarget)
    expect(alertDestinations({ destinations: [{ url: 'https://a.example/x', format: 'json' }] }, fallbackTarget)).toEqual([
      { url: 'https://a.example/x', format: 'json' },
    ])
    expect(destinationLabel(fallbackTarget[0])).toMatch(/^slack → https:\/\/hooks\.slack\.com #[0-9a-f]{6}$/)
    expect(destinationLabel(fallbackTarget[0])).not.toContain('secret')
    expect(destinationLabel({ url: 'http://127.0.0.1:9/x', format: 'auto' })).toBe(label('json', 'http://127.0.0.1:9/x'))
    // Two Slack channels: one origin, two destinations.
    expect(destinationLabel({ url: 'https://hooks.slack.com/services/T/B/other', format: 'auto' })).not.toBe(destinationLabel(fallbackTarget[0]))
  })
})

describe(`consecutive 1-minute windows, several destinations, evaluation history (${driverName})`, { timeout: 60_000 }, () => {
  let viewId = ''

  it('fires on the third window in a row that held, to each destination in its format; resolves at once', async () => {
    const view = await saveView(
      OWNER,
      { name: 'Busy health checks', page: 'rows', view: `dataset=requests&range=1h&filter=${encodeURIComponent("route = '/w'")}` },
      database.db,
    )
    viewId = view.id
    await setCondition(
      OWNER,
      view.id,
      {
        condition: {
          metric: 'count',
          op: 'above',
          threshold: 2,
          windowMinutes: 1,
          consecutiveWindows: 3,
          destinations: [
            { url: json.url, format: 'json' },
            { url: slack.url, format: 'slack' },
          ],
        },
      },
      database.db,
    )
    // 3 rows in each of the minutes [0,1), [1,2), [2,3); 1 row in [3,4).
    for (const m of [0, 1, 2]) await requests(m + 0.25, 3, '/w')
    await requests(3.25, 1, '/w')

    expect((await run(1)).evaluations[0]).toMatchObject({ firing: false, recorded: null })
    expect((await run(2)).evaluations[0]).toMatchObject({ firing: false, recorded: null })
    const fired = await run(3)
    expect(fired.evaluations[0]).toMatchObject({ value: 3, firing: true, recorded: 'fired (pending)' })
    expect(fired.counts).toMatchObject({ fired: 1, delivered: 1, pending: 0 })
    expect(json.received).toEqual([expect.objectContaining({ event: 'fired', name: 'Busy health checks', value: 3, key: `view:${viewId}` })])
    expect(String(json.received[0].summary)).toContain('row count 3 rows is above 2 rows over each of the last 3 windows of 1 min')
    expect(slack.received).toHaveLength(1)
    expect(String(slack.received[0].text)).toMatch(/^FIRING: Busy health checks: /)
    expect(fallback.received).toEqual([])

    const resolved = await run(4)
    expect(resolved.evaluations[0]).toMatchObject({ value: 1, firing: false, recorded: 'resolved (pending)' })
    expect(json.received.map((b) => b.event)).toEqual(['fired', 'resolved'])
    expect(slack.received).toHaveLength(2)
  })

  it('a destination that is down is retried alone on the next run; each evaluation records what each destination answered', async () => {
    await requests(5.25, 3, '/w')
    await requests(6.25, 3, '/w')
    await requests(7.25, 3, '/w')
    slack.mode = '503'
    const partly = await run(8)
    expect(partly.counts).toMatchObject({ fired: 1, delivered: 0, failed: 1, pending: 1 })
    expect(json.received.map((b) => b.event)).toEqual(['fired', 'resolved', 'fired'])
    const [row] = await q(sql`SELECT delivery, attempt_log FROM alerts WHERE alert_key = ${`view:${viewId}`} ORDER BY at DESC, id DESC LIMIT 1`)
    const log = row.attempt_log as Array<{ to: string; ok: boolean; status: number }>
    const jsonLabel = label('json', json.url)
    const slackLabel = label('slack', slack.url)
    expect(log.map((a) => [a.to, a.ok, a.status])).toEqual([
      [jsonLabel, true, 200],
      [slackLabel, false, 503],
      [slackLabel, false, 503],
    ])
    // No URL path (where a webhook keeps its secret) in the dataset every query user reads.
    expect(JSON.stringify(row)).not.toContain('/hook')

    slack.mode = 'up'
    await requests(8.25, 3, '/w')
    const back = await run(9)
    expect(back.counts).toMatchObject({ fired: 0, delivered: 1, pending: 0 })
    expect(json.received).toHaveLength(3)
    expect(slack.received.map((b) => String(b.text).split(':')[0])).toEqual(['FIRING', 'RESOLVED', 'FIRING'])

    const history = (await listEvaluations(OWNER, [viewId], 20, database.db)).get(viewId)!
    expect(history.map((e) => [e.state, e.held, e.value, e.delivery])).toEqual([
      ['firing', 1, 3, null],
      ['firing', 3, 3, 'delivered'],
      ['resolved', 0, 1, 'delivered'],
      ['firing', 3, 3, 'delivered'],
      ['ok', 2, 3, null],
      ['ok', 1, 3, null],
    ])
    expect(history[0]).toMatchObject({ windowStart: at(8).toISOString(), windowEnd: at(9).toISOString(), threshold: 2, consecutiveWindows: 3 })
    // The firing of run 8: the JSON receiver took it then, the Slack one on the next run.
    expect(history[1].outcomes).toEqual([
      { destination: jsonLabel, delivered: true, status: 200, error: null },
      { destination: slackLabel, delivered: true, status: 200, error: null },
    ])
    // Someone else reads nothing of it.
    expect((await listEvaluations('email:eve@example.com', [viewId], 20, database.db)).size).toBe(0)
  })

  it('a condition without destinations goes to the default; deleting the view deletes its history', async () => {
    const view = await saveView(
      OWNER,
      { name: 'Quiet', page: 'rows', view: `dataset=requests&range=1h&filter=${encodeURIComponent("route = '/q'")}` },
      database.db,
    )
    await setCondition(OWNER, view.id, { condition: { metric: 'count', op: 'below', threshold: 1, windowMinutes: 1 } }, database.db)
    await run(10)
    expect(fallback.received).toEqual([expect.objectContaining({ event: 'fired', key: `view:${view.id}` })])
    expect((await listEvaluations(OWNER, [view.id], 5, database.db)).get(view.id)).toHaveLength(1)
    await deleteSaved(OWNER, view.id, database.db)
    expect(await q(sql`SELECT count(*)::int AS n FROM alert_evaluation WHERE view_id = ${view.id}`)).toEqual([{ n: 0 }])
  })

  it('two destinations on one origin (two Slack channels) each get the notification', async () => {
    const view = await saveView(
      OWNER,
      { name: 'Twice', page: 'rows', view: `dataset=requests&range=1h&filter=${encodeURIComponent("route = '/t'")}` },
      database.db,
    )
    const destinations = [`${json.url}/one`, `${json.url}/two`].map((url) => ({ url, format: 'json' as const }))
    await setCondition(OWNER, view.id, { condition: { metric: 'count', op: 'below', threshold: 1, windowMinutes: 1, destinations } }, database.db)
    await run(11)
    expect(json.received.filter((b) => b.key === `view:${view.id}`).map((b) => b.event)).toEqual(['fired', 'fired'])
    const history = (await listEvaluations(OWNER, [view.id], 5, database.db)).get(view.id)!
    expect(history[0].outcomes?.map((o) => [o.destination, o.delivered])).toEqual(destinations.map((d) => [label('json', d.url), true]).sort())
  })

  it('a departure fires when the window departs from the median of the same window on earlier days, and records the threshold it met', async () => {
    const view = await saveView(
      OWNER,
      { name: 'Departures', page: 'rows', view: `dataset=requests&range=1h&filter=${encodeURIComponent("route = '/d'")}` },
      database.db,
    )
    await setCondition(
      OWNER,
      view.id,
      { condition: { metric: 'count', op: 'above', threshold: 0.5, windowMinutes: 1, compareDays: 3, destinations: [{ url: json.url, format: 'json' }] } },
      database.db,
    )
    // The same minute on the 3 days before: 2, 4 and 9 rows (median 4, so above 6 departs); today 6, then 7.
    for (const [days, n] of [
      [1, 2],
      [2, 4],
      [3, 9],
    ])
      for (const m of [20, 21]) await requests(m + 0.5, n, '/d', days)
    await requests(20.5, 6, '/d')
    await requests(21.5, 7, '/d')
    const before = json.received.length
    const quiet = await run(21)
    expect(quiet.evaluations.find((e) => e.id === view.id)).toMatchObject({ value: 6, firing: false })
    const fired = await run(22)
    expect(fired.evaluations.find((e) => e.id === view.id)).toMatchObject({ value: 7, firing: true, recorded: 'fired (pending)' })
    const sent = json.received.slice(before).find((b) => b.key === `view:${view.id}`)!
    expect(String(sent.summary)).toContain('row count 7 rows is above 6 rows (50 % above the usual 4 rows of the same window on the last 3 days)')
    const history = (await listEvaluations(OWNER, [view.id], 10, database.db)).get(view.id)!
    expect(history.map((h) => [h.value, h.threshold, h.state])).toEqual([
      [7, 6, 'firing'],
      [6, 6, 'ok'],
    ])
    await deleteSaved(OWNER, view.id, database.db)
  })

  it('new patterns: fires when the window has templates the days before did not, and names them', async () => {
    const view = await saveView(
      OWNER,
      { name: 'New routes', page: 'rows', view: `dataset=requests&range=1h&filter=${encodeURIComponent("route LIKE '/np/%'")}` },
      database.db,
    )
    await setCondition(
      OWNER,
      view.id,
      {
        condition: {
          metric: 'new_patterns',
          patternColumn: 'route',
          op: 'above',
          threshold: 0,
          windowMinutes: 1,
          compareDays: 2,
          destinations: [{ url: json.url, format: 'json' }],
        },
      },
      database.db,
    )
    // Known for two days: /np/users/<num>. In minute 24 the same template with new numbers (not new); in minute 25 two new ones.
    for (const [minutes, route, days] of [
      [10.5, '/np/users/1', 1],
      [11.5, '/np/users/22', 2],
      [24.5, '/np/users/333', 0],
      [25.25, '/np/orders/4/items/5', 0],
      [25.5, '/np/export/9f8e7d6c5b4a3210', 0],
      [25.75, '/np/users/7', 0],
    ] as const)
      await requests(minutes, 1, route, days)
    const before = json.received.length
    expect((await run(25)).evaluations.find((e) => e.id === view.id)).toMatchObject({ value: 0, firing: false })
    expect((await run(26)).evaluations.find((e) => e.id === view.id)).toMatchObject({ value: 2, firing: true, recorded: 'fired (pending)' })
    const sent = json.received.slice(before).find((b) => b.key === `view:${view.id}`)!
    expect(String(sent.summary)).toContain(
      'is firing: 2 new patterns of route over the last 1 min, not seen in the 2 days before (API requests): /np/export/<hex>, /np/orders/<num>/items/<num>.',
    )
    expect(describeCondition(Condition.parse({ metric: 'new_patterns', patternColumn: 'route', op: 'above', threshold: 0, windowMinutes: 15 }))).toBe(
      'More than 0 new patterns of route over the last 15 min (templates not seen in the 7 days before)',
    )
    expect(Condition.safeParse({ metric: 'new_patterns', op: 'above', threshold: 0, windowMinutes: 15 }).error?.issues[0].message).toBe(
      'new patterns need the text column to look at',
    )
    await expect(
      setCondition(
        OWNER,
        view.id,
        { condition: { metric: 'new_patterns', patternColumn: 'status', op: 'above', threshold: 0, windowMinutes: 1 } },
        database.db,
      ),
    ).rejects.toThrow(/patternColumn "status" is not a text column of API requests/)
    await deleteSaved(OWNER, view.id, database.db)
  })

  it('1-minute checks: the schedule runs every minute, and a 1-minute window counts exactly its rows, partial minutes included', async () => {
    expect(jobSchedules({ alerts: '* * * * *' }).alerts).toBe('* * * * *')
    expect(nextRun(parseCron('* * * * *'), new Date('2026-11-20T10:00:30Z'))).toEqual(new Date('2026-11-20T10:01:00Z'))
    // No filter: the count may come from the minute rollup, with the rows at the window's edges.
    const all = { view: 'dataset=requests&range=1h' }
    const count = Condition.parse({ metric: 'count', op: 'above', threshold: 0, windowMinutes: 1 })
    const rawCount = async (from: Date, to: Date) =>
      Number(
        (
          await q(sql`SELECT count(*)::int AS n FROM request_log WHERE time >= ${from.toISOString()}::timestamptz AND time < ${to.toISOString()}::timestamptz`)
        )[0].n,
      )
    for (const end of [at(3), new Date(at(3).getTime() + 30_000), new Date(at(6).getTime() + 15_000)]) {
      const from = new Date(end.getTime() - 60_000)
      const m = await measure(database, all, count, end)
      expect([end.toISOString(), m.value]).toEqual([end.toISOString(), await rawCount(from, end)])
    }
    expect((await measure(database, all, count, new Date(at(3).getTime() + 30_000))).value).toBe(1)
  })
})

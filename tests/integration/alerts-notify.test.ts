import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createTestKey, signToken, startJwksServer, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, type RunningApp } from '../../test-support/app'

// The built server against loopback webhook receivers that keep exactly what arrives: "Send a test
// notification" goes through the alert's channel to each destination (the configured webhook by
// default), marked as a test, and answers what each receiver said; it keeps the query
// application's access policy (owner only) and refuses cross-site POSTs. A scheduled run of the
// alerts job then delivers a real firing and the owner's saved page lists the check.

let key: TestKey
let jwks: JwksServer
let app: RunningApp

interface Receiver {
  status: number
  received: Array<{ path: string; body: Record<string, unknown> }>
  server: Server
  url: string
}
async function startReceiver(): Promise<Receiver> {
  const r = { status: 200, received: [] } as unknown as Receiver
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      r.received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) })
      res.writeHead(r.status).end(r.status === 200 ? 'ok' : 'no')
    })
  })
  await new Promise<void>((done) => r.server.listen(0, '127.0.0.1', done))
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`
  return r
}

/** A destination's label: channel, origin and the start of the URL's SHA-256 (never its path). */
const label = (format: string, url: string) => `${format} → ${new URL(url).origin} #${createHash('sha256').update(url).digest('hex').slice(0, 6)}`

let team: Receiver
let other: Receiver
const SECRET = 'cron-secret-for-alert-notify-tests-0123456789'
const ANA = { email: 'ana@example.com', sub: 'user-ana' }
const BEN = { email: 'ben@example.com', sub: 'user-ben' }

async function as(who: typeof ANA, path: string, init: RequestInit = {}) {
  const headers = {
    'cf-access-jwt-assertion': await signToken(key, who),
    origin: app.url,
    'content-type': 'application/json',
    ...(init.headers as Record<string, string>),
  }
  return fetch(`${app.url}${path}`, { ...init, headers })
}
const putCondition = (who: typeof ANA, id: string, condition: unknown) =>
  as(who, `/query/api/saved/${id}/condition`, { method: 'PUT', body: JSON.stringify({ condition }) })
const test = (who: typeof ANA, id: string, headers: Record<string, string> = {}) =>
  as(who, `/query/api/saved/${id}/test-notification`, { method: 'POST', headers })

let viewId = ''

beforeAll(async () => {
  ;[team, other] = await Promise.all([startReceiver(), startReceiver()])
  key = await createTestKey('rsa-notify')
  jwks = await startJwksServer([key])
  app = await startApp({
    ACCESS_JWKS_URL: jwks.url,
    ACCESS_AUDIENCE: 'test-aud-tag',
    ACCESS_ISSUER: 'https://team.example.test',
    ALERT_WEBHOOK_URL: `${team.url}/team-hook`,
    ALERT_DELIVERY_ATTEMPTS: '2',
    PUBLIC_BASE_URL: 'https://api.example.com',
    CRON_SECRET: SECRET,
  })
  const saved = await as(ANA, '/query/api/saved', {
    method: 'POST',
    body: JSON.stringify({ name: 'Nothing from /nowhere', page: 'rows', view: `dataset=requests&range=1h&filter=${encodeURIComponent("route = '/nowhere'")}` }),
  })
  viewId = (await saved.json()).id
}, 120_000)

afterAll(async () => {
  await app?.stop()
  await jwks?.close()
  for (const r of [team, other]) await new Promise((done) => r?.server.close(done))
})

beforeEach(() => {
  team.received.length = 0
  other.received.length = 0
  team.status = 200
  other.status = 200
})

describe('test notification', () => {
  it('is refused for a view without an alert condition', async () => {
    const res = await test(ANA, viewId)
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toMatch(/no alert condition/)
    expect(team.received).toEqual([])
  })

  it('goes to the configured webhook in its format, marked as a test, linking to the view, and says it was delivered', async () => {
    expect((await putCondition(ANA, viewId, { metric: 'count', op: 'below', threshold: 1, windowMinutes: 1 })).status).toBe(200)
    const res = await test(ANA, viewId)
    expect(res.status).toBe(200)
    const teamHook = label('json', `${team.url}/team-hook`)
    expect(await res.json()).toEqual({
      message: `Delivered to ${teamHook} (HTTP 200).`,
      outcomes: [{ destination: teamHook, delivered: true, status: 200, error: null, attempts: 1 }],
    })
    expect(team.received).toHaveLength(1)
    const [{ path, body }] = team.received
    expect(path).toBe('/team-hook')
    expect(body).toMatchObject({
      id: 0,
      kind: 'condition',
      event: 'test',
      test: true,
      key: `view:${viewId}`,
      name: 'Nothing from /nowhere',
      condition: { dataset: 'requests', metric: 'count', op: 'below', threshold: 1, windowMinutes: 1 },
      value: null,
    })
    expect(String(body.summary)).toBe(
      `Test notification for saved view ${viewId}, nothing is firing: it fires when row count below 1 row over the last 1 min (API requests).`,
    )
    const link = new URL(String(body.link))
    expect(`${link.origin}${link.pathname}`).toBe('https://api.example.com/query')
    expect(link.searchParams.get('filter')).toBe("route = '/nowhere'")
  })

  it('goes to each of the alert’s own destinations in its format, and says which one failed and why', async () => {
    const condition = {
      metric: 'count',
      op: 'below',
      threshold: 1,
      windowMinutes: 1,
      destinations: [
        { url: `${other.url}/json`, format: 'json' },
        { url: `${team.url}/slack`, format: 'slack' },
      ],
    }
    expect((await putCondition(ANA, viewId, condition)).status).toBe(200)
    team.status = 500
    const res = await test(ANA, viewId)
    const body = await res.json()
    expect(body.outcomes).toEqual([
      { destination: label('json', `${other.url}/json`), delivered: true, status: 200, error: null, attempts: 1 },
      { destination: label('slack', `${team.url}/slack`), delivered: false, status: 500, error: 'alert webhook answered HTTP 500. (no)', attempts: 2 },
    ])
    expect(body.message).toBe(
      `Delivered to ${label('json', `${other.url}/json`)} (HTTP 200). Not delivered to ${label('slack', `${team.url}/slack`)} after 2 attempts: alert webhook answered HTTP 500. (no).`,
    )
    expect(other.received.map((r) => [r.path, r.body.event, r.body.test])).toEqual([['/json', 'test', true]])
    // The Slack body, twice (retried), says TEST.
    expect(team.received.map((r) => [r.path, String(r.body.text).split(':')[0]])).toEqual([
      ['/slack', 'TEST'],
      ['/slack', 'TEST'],
    ])
  })

  it('keeps the access policy and refuses cross-site requests, sending nothing', async () => {
    const theirs = await test(BEN, viewId)
    expect(theirs.status).toBe(404)
    expect((await theirs.json()).error.code).toBe('not_found')
    const crossSite = await test(ANA, viewId, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    const anonymous = await fetch(`${app.url}/query/api/saved/${viewId}/test-notification`, { method: 'POST', headers: { origin: app.url } })
    expect(anonymous.status).toBe(401)
    expect((await as(ANA, `/query/api/saved/${viewId}/test-notification`, { method: 'GET' })).status).toBe(405)
    expect([...team.received, ...other.received]).toEqual([])
  })
})

describe('conditions through the API', () => {
  it('validates consecutive windows and destinations with the condition’s schema', async () => {
    const base = { metric: 'count', op: 'below', threshold: 1, windowMinutes: 1 }
    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, consecutiveWindows: 0 }, /consecutiveWindows/],
      [{ ...base, consecutiveWindows: 11 }, /consecutiveWindows/],
      [{ ...base, destinations: [{ url: 'http://hooks.example.com/x' }] }, /https URL/],
      [{ ...base, destinations: [{ url: 'https://a.example/x', format: 'teams' }] }, /format/],
    ]
    for (const [condition, message] of cases) {
      const res = await putCondition(ANA, viewId, condition)
      expect(res.status).toBe(400)
      expect((await res.json()).error.message).toMatch(message)
    }
    const ok = await putCondition(ANA, viewId, { ...base, consecutiveWindows: 2 })
    expect(await ok.json()).toMatchObject({ condition: { ...base, consecutiveWindows: 2, destinations: [] } })
  })

  it('a scheduled run delivers a real firing to the default webhook, and the owner’s page lists the check', async () => {
    expect((await putCondition(ANA, viewId, { metric: 'count', op: 'below', threshold: 1, windowMinutes: 1 })).status).toBe(200)
    const run = await fetch(`${app.url}/api/cron/alerts`, { headers: { authorization: `Bearer ${SECRET}` } })
    expect(run.status).toBe(200)
    expect(await run.json()).toMatchObject({ outcome: 'succeeded', counts: { evaluated: 1, fired: 1, delivered: 1 } })
    expect(team.received.map((r) => [r.path, r.body.event, r.body.test])).toEqual([['/team-hook', 'fired', undefined]])
    const html = await (await as(ANA, '/query/saved')).text()
    expect(html).toContain('Recent checks of Nothing from /nowhere')
    expect(html).toMatch(/Firing/)
    expect(html).toContain(`Delivered: ${label('json', `${team.url}/team-hook`)}: delivered (HTTP 200)`)
    // The page names the webhook without its path.
    expect(html).not.toContain('team-hook')
    expect(await (await as(BEN, '/query/saved')).text()).not.toContain('Recent checks of')
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestKey, signToken, startJwksServer, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, type RunningApp } from '../../test-support/app'

// Saved views and history belong to one identity: with two people signed in through the access
// proxy (real tokens, verified by the built server), neither can see, rename or delete the
// other's views, and a shared link carries the view, not the saved entry.

let key: TestKey
let jwks: JwksServer
let app: RunningApp

const ANA = { email: 'ana@example.com', sub: 'user-ana' }
const BEN = { email: 'Ben@Example.com', sub: 'user-ben' }

async function as(who: typeof ANA, path: string, init: RequestInit = {}) {
  const headers = {
    'cf-access-jwt-assertion': await signToken(key, who),
    origin: app.url,
    'content-type': 'application/json',
    ...(init.headers as Record<string, string>),
  }
  return fetch(`${app.url}${path}`, { ...init, headers })
}
const save = (who: typeof ANA, body: unknown) => as(who, '/query/api/saved', { method: 'POST', body: JSON.stringify(body) })
const list = async (who: typeof ANA) => (await (await as(who, '/query/api/saved')).json()).saved as Array<{ id: string; name: string; view: string }>

beforeAll(async () => {
  key = await createTestKey('rsa-saved')
  jwks = await startJwksServer([key])
  app = await startApp({ ACCESS_JWKS_URL: jwks.url, ACCESS_AUDIENCE: 'test-aud-tag', ACCESS_ISSUER: 'https://team.example.test' })
}, 90_000)

afterAll(async () => {
  await app?.stop()
  await jwks?.close()
})

describe('saved views', () => {
  let anas: { id: string; name: string; view: string }

  it('saves a view under its canonical query string and lists it for its owner', async () => {
    const res = await save(ANA, { name: ' Blocked this week ', page: 'rows', view: 'filter=action+%3D+%27block%27&range=7d&dataset=http&offset=300' })
    expect(res.status).toBe(201)
    anas = await res.json()
    expect(anas).toMatchObject({ name: 'Blocked this week', page: 'rows', view: 'dataset=http&range=7d&filter=action+%3D+%27block%27' })
    expect(await list(ANA)).toEqual([expect.objectContaining({ id: anas.id, name: 'Blocked this week' })])
  })

  it('never shows one person’s views to another', async () => {
    await save(BEN, { name: 'Blocked this week', page: 'dashboard', view: 'dataset=dns' })
    const bens = await list(BEN)
    expect(bens.map((s) => s.name)).toEqual(['Blocked this week'])
    expect(bens[0].id).not.toBe(anas.id)
    expect(bens[0].view).toBe('dataset=dns&range=24h')
    expect((await list(ANA)).map((s) => s.id)).toEqual([anas.id])
    // The page lists only the signed-in person's views too.
    const html = await (await as(BEN, '/query/saved')).text()
    expect(html).toContain('Dashboard · Gateway DNS')
    expect(html).not.toContain(anas.id)
    expect(html).not.toContain('Gateway HTTP · Last 7 days')
  })

  it('refuses to rename or delete someone else’s view, exactly as if it did not exist', async () => {
    const rename = await as(BEN, `/query/api/saved/${anas.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'mine now' }) })
    const remove = await as(BEN, `/query/api/saved/${anas.id}`, { method: 'DELETE' })
    const missing = await as(BEN, '/query/api/saved/00000000-0000-4000-8000-000000000000', { method: 'DELETE' })
    for (const res of [rename, remove, missing]) {
      expect(res.status).toBe(404)
      expect((await res.json()).error).toMatchObject({ code: 'not_found', message: 'There is no saved view with this id among yours.' })
    }
    expect(await list(ANA)).toEqual([expect.objectContaining({ id: anas.id, name: 'Blocked this week' })])
  })

  it('renames and deletes the owner’s own view', async () => {
    const renamed = await as(ANA, `/query/api/saved/${anas.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'HTTP blocks' }) })
    expect(renamed.status).toBe(200)
    expect(await renamed.json()).toMatchObject({ id: anas.id, name: 'HTTP blocks' })
    expect((await as(ANA, `/query/api/saved/${anas.id}`, { method: 'DELETE' })).status).toBe(204)
    expect(await list(ANA)).toEqual([])
    expect((await list(BEN)).map((s) => s.name)).toEqual(['Blocked this week'])
  })

  it('shares a view as its page URL: another person opens the view, not the saved entry', async () => {
    const saved = await (await save(ANA, { name: 'Shared', page: 'rows', view: 'dataset=dns&range=7d&filter=rcode+%3D+3' })).json()
    const page = await as(BEN, `/query?${saved.view}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('Gateway DNS · Rows')
    expect(html).toContain('rcode = 3')
    expect(html).not.toContain(saved.id)
    expect((await list(BEN)).map((s) => s.name)).not.toContain('Shared')
  })

  it.each([
    [{ name: '', page: 'rows', view: 'dataset=dns' }, /name/],
    [{ name: 'x'.repeat(101), page: 'rows', view: 'dataset=dns' }, /name/],
    [{ name: 'x', page: 'admin', view: 'dataset=dns' }, /page/],
    [{ name: 'x', page: 'rows', view: 'dataset=pg_shadow' }, /There is no dataset “pg_shadow”/],
    [{ name: 'x', page: 'rows', view: 'dataset=dns', owner: 'ben' }, /owner/],
  ])('refuses %j with 400', async (body, message) => {
    const res = await save(ANA, body)
    expect(res.status).toBe(400)
    expect((await res.json()).error.message).toMatch(message)
  })

  it('refuses a rename onto another of the owner’s names with 409', async () => {
    await save(ANA, { name: 'one', page: 'rows', view: 'dataset=dns' })
    const two = await (await save(ANA, { name: 'two', page: 'rows', view: 'dataset=dns' })).json()
    const res = await as(ANA, `/query/api/saved/${two.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'one' }) })
    expect(res.status).toBe(409)
  })
})

describe('alerts of a saved view', () => {
  it('links a view with an alert to its rows of the alerts dataset, by id, on its owner’s page only', async () => {
    const view = await (await save(ANA, { name: 'Private errors', page: 'rows', view: 'dataset=requests&filter=status+%3E%3D+500' })).json()
    const set = await as(ANA, `/query/api/saved/${view.id}/condition`, {
      method: 'PUT',
      body: JSON.stringify({ condition: { metric: 'count', op: 'above', threshold: 5, windowMinutes: 15 } }),
    })
    expect(set.status).toBe(200)
    const href = `/query?${new URLSearchParams({ dataset: 'alerts', range: '7d', filter: `view_id = '${view.id}'` })}`.replaceAll('&', '&amp;')
    const anas = await (await as(ANA, '/query/saved')).text()
    expect(anas).toContain(`href="${href}"`)
    expect(anas).toContain('aria-label="Alerts of Private errors"')
    const bens = await (await as(BEN, '/query/saved')).text()
    expect(bens).not.toContain(view.id)
    expect(bens).not.toContain('Private errors')
  })
})

describe('history', () => {
  type HistoryEntry = { id: number; page: string; view: string }
  const history = async (who: typeof ANA) => (await (await as(who, '/query/api/history')).json()).history as HistoryEntry[]
  /** Runs a page and waits for its history row: the page writes it in after(), once the response has been sent. */
  async function run(who: typeof ANA, path: string) {
    const before = (await history(who))[0]?.id ?? 0
    await as(who, path)
    await expect.poll(async () => (await history(who))[0]?.id ?? 0, { timeout: 10_000 }).toBeGreaterThan(before)
  }

  it('records each person’s runs of the pages, and only theirs', async () => {
    await run(ANA, '/query?dataset=network&range=7d&filter=transport+%3D+%27tcp%27')
    await run(ANA, '/query/dashboard?dataset=network&range=1h')
    await run(BEN, '/query?dataset=sessions&range=24h&filter=nope+%3D+1')
    const anas = await history(ANA)
    const bens = await history(BEN)
    expect(anas.slice(0, 2)).toEqual([
      expect.objectContaining({ page: 'dashboard', view: 'dataset=network&range=1h', rowCount: 0, error: null }),
      expect.objectContaining({ page: 'rows', view: 'dataset=network&range=7d&filter=transport+%3D+%27tcp%27', rowCount: 0, error: null }),
    ])
    expect(bens[0]).toMatchObject({
      page: 'rows',
      view: 'dataset=sessions&range=24h&filter=nope+%3D+1',
      rowCount: null,
      error: expect.stringContaining('nope'),
    })
    // Ben's earlier run is the view Ana shared with him; none of Ana's runs are his, nor his hers.
    expect(bens.map((h: { view: string }) => h.view)).not.toContain('dataset=network&range=1h')
    expect(anas.map((h: { view: string }) => h.view)).not.toContain('dataset=sessions&range=24h&filter=nope+%3D+1')
  })
})

import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { startFakeGhost, type Fault, type FakeGhost } from '../../test-support/fake-ghost'
import { startFakeMicrosoft, type FakeMicrosoft } from '../../test-support/fake-microsoft'
import { loadContract } from '../../test-support/openapi'

// The internal Message Center jobs end to end: a fake Microsoft login + Graph and a fake Ghost
// (Content and Admin API) on loopback, the built server in between.

type Contract = Awaited<ReturnType<typeof loadContract>>

const KEY = randomBytes(16).toString('hex')
const MESSAGE_IDS = ['MC172851', 'MC237349', 'MC237741', 'MC247825', 'MC248201']

describe('Message Center jobs', () => {
  let ghost: FakeGhost
  let ms: FakeMicrosoft
  let app: RunningApp
  let contract: Contract

  const post = async (path: string, key: string | null = KEY) => {
    const res = await fetch(`${app.url}${path}`, { method: 'POST', headers: key === null ? {} : { 'x-tc-api-key': key } })
    const body = await res.json()
    contract.expectValid('POST', path, res.status, body)
    return { status: res.status, body }
  }
  const ghostCalls = (method: string) => ghost.upstream.requests.filter((r) => r.method === method && r.path.startsWith('/ghost/api/admin/posts/'))

  beforeAll(async () => {
    ghost = await startFakeGhost()
    ms = await startFakeMicrosoft()
    app = await startApp({
      GHOST_URL: ghost.url,
      GHOST_CONTENT_API_KEY: ghost.contentKey,
      GHOST_ADMIN_API_KEY: ghost.adminKey,
      ...ms.env(),
      MESSAGE_CENTER_TAG: 'm365-message-center',
      INTERNAL_API_KEYS: `other-internal-key-0123456789abcdefghij,${KEY}`,
      UPSTREAM_TIMEOUT_MS: '1500',
      UPSTREAM_RETRIES: '1',
    })
    contract = await loadContract(app.url)
  })
  afterAll(async () => {
    await app?.stop()
    await ghost?.close()
    await ms?.close()
  })
  beforeEach(() => {
    ghost.fault = null
    ms.fault = null
    ghost.failDeleteIds.clear()
    ghost.upstream.requests.length = 0
    ms.upstream.requests.length = 0
  })

  describe('internal key', () => {
    it.each([
      ['no key', null, /Missing API key/],
      ['a wrong key', 'not-the-key', /Invalid API key/],
    ])('with %s both jobs answer 403 {error} and touch no upstream', async (_label, key, message) => {
      for (const path of ['/api/office/messagecenter/publish', '/api/office/messagecenter/deduplicate?dryRun=false']) {
        const res = await post(path, key)
        expect(res.status, path).toBe(403)
        expect(res.body).toEqual({ error: expect.stringMatching(message), requestId: expect.any(String) })
      }
      expect(ghost.upstream.requests).toEqual([])
      expect(ms.upstream.requests).toEqual([])
    })

    it('cannot be called from a browser of another origin: the key header is not allowed cross-origin', async () => {
      const res = await fetch(`${app.url}/api/office/messagecenter/deduplicate`, {
        method: 'OPTIONS',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-tc-api-key' },
      })
      expect(res.headers.get('access-control-allow-headers') ?? '').not.toMatch(/x-tc-api-key/i)
    })
  })

  describe('publish', () => {
    it('publishes every message from all Graph pages once; a second run creates nothing', async () => {
      const before = ghost.posts.length
      const first = await post('/api/office/messagecenter/publish')
      expect(first.status).toBe(200)
      expect(first.body).toMatchObject({ dryRun: false, scanned: 5, published: 5, skipped: 0, failed: 0, pending: 0 })
      expect(first.body.messages.map((m: { messageId: string }) => m.messageId).sort()).toEqual(MESSAGE_IDS)

      // Both Graph pages were read with the app token.
      const graphGets = ms.upstream.requests.filter((r) => r.path.endsWith('/messages'))
      expect(graphGets.map((r) => r.query.get('$skip'))).toEqual([null, '100'])

      const created = ghostCalls('POST')
      expect(created).toHaveLength(5)
      const bodies = created.map((r) => JSON.parse(r.body.toString()).posts[0])
      expect(bodies.map((b) => b.slug).sort()).toEqual(MESSAGE_IDS.map((id) => id.toLowerCase()))
      for (const b of bodies) {
        expect(b.tags).toEqual([{ name: 'm365-message-center', slug: 'm365-message-center' }])
        expect(b.status).toBe('published')
        expect(b.html).not.toMatch(/<script|\son\w+=/i)
      }
      expect(created.every((r) => r.query.get('source') === 'html')).toBe(true)
      expect(ghost.posts.length).toBe(before + 5)

      const second = await post('/api/office/messagecenter/publish')
      expect(second.body).toMatchObject({ scanned: 5, published: 0, skipped: 5, failed: 0 })
      expect(ghostCalls('POST')).toHaveLength(5)
      expect(ghost.posts.filter((p) => /^mc\d+-\d+$/.test(p.slug))).toEqual([])
      // The token is reused across runs.
      expect(ms.upstream.requests.filter((r) => r.path.endsWith('/token'))).toHaveLength(1)

      // Published posts are readable through the public tag listing.
      const listed = await (await fetch(`${app.url}/api/blog/posts/tag/m365-message-center?limit=100`)).json()
      expect(listed.posts.map((p: { slug: string }) => p.slug).sort()).toEqual(MESSAGE_IDS.map((id) => id.toLowerCase()))
    })

    it('a dry run creates nothing', async () => {
      ghost.posts.splice(1)
      const res = await post('/api/office/messagecenter/publish?dryRun=true')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ dryRun: true, published: 0, pending: 5 })
      expect(ghostCalls('POST')).toEqual([])
    })

    it('limit bounds one run and a failed create is reported while the run goes on', async () => {
      ghost.posts.splice(1)
      // Ghost refuses the first create of the run.
      let refused = false
      const original = ghost.addPost
      ghost.addPost = (slug, fields) => {
        if (!refused) {
          refused = true
          throw new Error('refused')
        }
        return original(slug, fields)
      }
      try {
        const res = await post('/api/office/messagecenter/publish?limit=3')
        expect(res.body).toMatchObject({ published: 2, failed: 1, pending: 2 })
        expect(res.body.messages.find((m: { outcome: string }) => m.outcome === 'failed').reason).toMatch(/Ghost/)
      } finally {
        ghost.addPost = original
      }
    })

    it('a token Graph refuses is dropped: that run fails, the next one gets a new token', async () => {
      await post('/api/office/messagecenter/publish?dryRun=true')
      ms.rotateToken()
      const refused = await post('/api/office/messagecenter/publish?dryRun=true')
      expect(refused.status).toBe(502)
      expect(refused.body.error).toMatch(/Microsoft Graph answered HTTP 401/)
      const seen = ms.upstream.requests.length
      const again = await post('/api/office/messagecenter/publish?dryRun=true')
      expect(again.status).toBe(200)
      expect(ms.upstream.requests.slice(seen).filter((r) => r.path.endsWith('/token'))).toHaveLength(1)
    })

    it.each(['maybe', 'TRUE', '1'])('dryRun=%s is a 400 {error}', async (value) => {
      const res = await post(`/api/office/messagecenter/publish?dryRun=${value}`)
      expect(res.status).toBe(400)
      expect(res.body.error).toMatch(/dryRun/)
    })

    it.each<[string, Fault, number]>([
      ['/v1.0/', 'status500', 502],
      ['/v1.0/', 'malformed', 502],
      ['/v1.0/', 'timeout', 504],
      ['/ghost/api/admin/', 'status500', 502],
      ['/ghost/api/admin/', 'malformed', 502],
      ['/ghost/api/admin/', 'timeout', 504],
    ])('a %s %s fails the run with %i {error}', async (prefix, kind, status) => {
      if (prefix === '/v1.0/') ms.fault = { prefix, kind }
      else ghost.fault = { prefix, kind }
      const res = await post('/api/office/messagecenter/publish')
      expect(res.status).toBe(status)
      expect(res.body).toEqual({ error: expect.stringMatching(prefix === '/v1.0/' ? /Microsoft Graph/ : /Ghost/), requestId: expect.any(String) })
      expect(ghostCalls('POST')).toEqual([])
    })
  })

  describe('deduplicate', () => {
    let base: string
    let duplicates: string[]
    let orphan: string

    beforeEach(() => {
      ghost.posts.splice(1)
      base = ghost.addPost('mc555001').id
      duplicates = [ghost.addPost('mc555001-2').id, ghost.addPost('mc555001-3').id]
      // A suffixed post whose base is gone is the only copy: never a duplicate.
      orphan = ghost.addPost('mc555002-2').id
      // Enough other posts that the scan needs several Admin API pages.
      for (let i = 0; i < 120; i++) ghost.addPost(`post-${i}`)
    })

    it('reports without deleting by default, and with dryRun=true', async () => {
      for (const path of ['/api/office/messagecenter/deduplicate', '/api/office/messagecenter/deduplicate?dryRun=true']) {
        const res = await post(path)
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ dryRun: true, scanned: 125, duplicatesFound: 2, deleted: 0, failed: 0 })
        expect(res.body.duplicates.map((d: { id: string; deleted: boolean }) => [d.id, d.deleted])).toEqual(duplicates.map((id) => [id, false]))
        expect(res.body.duplicates[0]).toEqual({
          id: duplicates[0],
          slug: 'mc555001-2',
          title: expect.any(String),
          url: `${ghost.url}/mc555001-2/`,
          deleted: false,
        })
      }
      expect(ghostCalls('DELETE')).toEqual([])
      expect(ghostCalls('GET').length).toBeGreaterThanOrEqual(4)
    })

    it('dryRun=false deletes exactly the duplicates', async () => {
      const res = await post('/api/office/messagecenter/deduplicate?dryRun=false')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ dryRun: false, duplicatesFound: 2, deleted: 2, failed: 0 })
      expect(
        ghostCalls('DELETE')
          .map((r) => r.path)
          .sort(),
      ).toEqual(duplicates.map((id) => `/ghost/api/admin/posts/${id}/`).sort())
      const ids = ghost.posts.map((p) => p.id)
      expect(ids).toContain(base)
      expect(ids).toContain(orphan)
      expect(ids.filter((id) => duplicates.includes(id))).toEqual([])

      const again = await post('/api/office/messagecenter/deduplicate?dryRun=false')
      expect(again.body).toMatchObject({ duplicatesFound: 0, deleted: 0, duplicates: [] })
    })

    it('a failed delete is counted and the run continues', async () => {
      ghost.failDeleteIds.add(duplicates[0])
      const res = await post('/api/office/messagecenter/deduplicate?dryRun=false')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ duplicatesFound: 2, deleted: 1, failed: 1 })
      expect(res.body.duplicates.map((d: { deleted: boolean }) => d.deleted)).toEqual([false, true])
      expect(ghostCalls('DELETE')).toHaveLength(2)
    })

    it.each(['yes', 'False', '0', 'no'])('dryRun=%s is a 400 {error} and deletes nothing', async (value) => {
      const res = await post(`/api/office/messagecenter/deduplicate?dryRun=${value}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: expect.stringMatching(/dryRun/), requestId: expect.any(String) })
      expect(ghost.upstream.requests).toEqual([])
    })

    it.each<[Fault, number]>([
      ['status500', 502],
      ['malformed', 502],
      ['timeout', 504],
    ])('Ghost %s while scanning → %i {error}, nothing deleted', async (kind, status) => {
      ghost.fault = { prefix: '/ghost/api/admin/', kind }
      const res = await post('/api/office/messagecenter/deduplicate?dryRun=false')
      expect(res.status).toBe(status)
      expect(res.body).toEqual({ error: expect.stringMatching(/Ghost/), requestId: expect.any(String) })
      expect(ghostCalls('DELETE')).toEqual([])
    })
  })
})

describe('Message Center jobs without configuration', () => {
  let app: RunningApp
  let contract: Contract

  beforeAll(async () => {
    app = await startApp({ INTERNAL_API_KEYS: KEY })
    contract = await loadContract(app.url)
  })
  afterAll(async () => {
    await app?.stop()
  })

  it.each([
    ['/api/office/messagecenter/publish', /MS_TENANT_ID/],
    ['/api/office/messagecenter/deduplicate', /GHOST_ADMIN_API_KEY/],
  ])('%s answers 503 {error} naming the variables', async (path, message) => {
    const res = await fetch(`${app.url}${path}`, { method: 'POST', headers: { 'x-tc-api-key': KEY } })
    const body = await res.json()
    contract.expectValid('POST', path, res.status, body)
    expect(res.status).toBe(503)
    expect(body.error).toMatch(message)
  })
})

describe('Message Center jobs with no internal key configured', () => {
  it('refuse every caller with 403', async () => {
    const app = await startApp({})
    try {
      const contract = await loadContract(app.url)
      const res = await fetch(`${app.url}/api/office/messagecenter/deduplicate`, { method: 'POST', headers: { 'x-tc-api-key': 'anything' } })
      const body = await res.json()
      contract.expectValid('POST', '/api/office/messagecenter/deduplicate', res.status, body)
      expect(res.status).toBe(403)
      expect(body.error).toMatch(/no internal API key is configured/)
    } finally {
      await app.stop()
    }
  })
})

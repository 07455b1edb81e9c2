import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { startFakeGhost, type Fault, type FakeGhost } from '../../test-support/fake-ghost'
import { loadContract } from '../../test-support/openapi'

// The blog (Ghost Content API), policies and bookings, end to end through the built server.

type Contract = Awaited<ReturnType<typeof loadContract>>

async function call(app: RunningApp, contract: Contract, path: string, init: RequestInit = {}) {
  const res = await fetch(`${app.url}${path}`, { redirect: 'manual', ...init })
  const text = await res.text()
  const body = text ? JSON.parse(text) : null
  contract.expectValid(init.method ?? 'GET', path, res.status, body)
  return { status: res.status, headers: res.headers, body }
}

const ghostEnv = (ghost: FakeGhost, extra: Record<string, string> = {}) => ({
  GHOST_URL: ghost.url,
  GHOST_CONTENT_API_KEY: ghost.contentKey,
  UPSTREAM_TIMEOUT_MS: '1500',
  UPSTREAM_RETRIES: '1',
  PUBLIC_BASE_URL: 'https://api.example.com',
  ...extra,
})

describe('blog', () => {
  let ghost: FakeGhost
  let app: RunningApp
  let contract: Contract

  beforeAll(async () => {
    ghost = await startFakeGhost()
    // 20 Message Center posts besides the recorded one, for paging and the tag listing.
    for (let i = 1; i <= 20; i++)
      ghost.addPost(`mc${100 + i}`, { title: `MC${100 + i}: message`, tags: [{ id: `t${i}`, name: 'M365 Message Center', slug: 'm365-message-center' }] })
    app = await startApp(ghostEnv(ghost))
    contract = await loadContract(app.url)
  })
  afterAll(async () => {
    await app?.stop()
    await ghost?.close()
  })

  it('GET /api/blog/info gives the settings fields', async () => {
    const { status, body, headers } = await call(app, contract, '/api/blog/info')
    expect(status).toBe(200)
    expect(body).toEqual({
      title: 'Ghost',
      description: 'The professional publishing platform',
      logo: 'https://demo.ghost.io/content/images/2014/09/Ghost-Transparent-for-DARK-BG.png',
      icon: 'https://demo.ghost.io/content/images/2017/07/favicon.png',
      url: null,
    })
    expect(headers.get('cache-control')).toMatch(/max-age=60/)
    const sent = ghost.upstream.requests.find((r) => r.path === '/ghost/api/content/settings/')!
    expect(sent.query.get('key')).toBe(ghost.contentKey)
    expect(sent.headers['accept-version']).toBe('v5.0')
  })

  it('GET /api/blog/posts pages through the posts with next_page', async () => {
    const first = await call(app, contract, '/api/blog/posts')
    expect(first.status).toBe(200)
    expect(first.body.posts).toHaveLength(15)
    expect(first.body.next_page).toBe('https://api.example.com/api/blog/posts?page=2&limit=15')
    expect(first.body.pagination).toEqual({ page: 1, limit: 15, pages: 2, total: 21 })
    expect(first.body.posts[0]).toMatchObject({ slug: 'welcome-short', tags: [{ slug: 'getting-started' }], authors: [{ slug: 'ghost' }] })
    expect(first.body.posts[0]).not.toHaveProperty('html')

    const second = await call(app, contract, '/api/blog/posts?page=2&limit=15')
    expect(second.body.posts).toHaveLength(6)
    expect(second.body.next_page).toBeNull()
    const sent = ghost.upstream.requests.filter((r) => r.path === '/ghost/api/content/posts/').at(-1)!
    expect(sent.query.get('include')).toBe('tags,authors')
  })

  it.each(['limit=0', 'limit=101', 'page=0', 'limit=x', 'unknown=1'])('GET /api/blog/posts?%s is a 400 naming the parameter', async (qs) => {
    const { status, body } = await call(app, contract, `/api/blog/posts?${qs}`)
    expect(status).toBe(400)
    expect(body.error.code).toBe('invalid_input')
    expect(body.error.message).toMatch(qs.split('=')[0] === 'unknown' ? /unknown|unrecognized/i : new RegExp(qs.split('=')[0]))
  })

  it('GET /api/blog/posts/{idOrSlug} finds a post by slug and by id, with its HTML', async () => {
    const bySlug = await call(app, contract, '/api/blog/posts/welcome-short')
    expect(bySlug.status).toBe(200)
    expect(bySlug.body).toMatchObject({ id: '5c7ece47da174000c0c5c6d7', html: "<p>👋 Welcome, it's great to have you here.</p>" })
    const byId = await call(app, contract, '/api/blog/posts/5c7ece47da174000c0c5c6d7')
    expect(byId.status).toBe(200)
    expect(byId.body.slug).toBe('welcome-short')
  })

  it('GET /api/blog/posts/{idOrSlug} is 404 for a missing post and 400 for a malformed one', async () => {
    const missing = await call(app, contract, '/api/blog/posts/no-such-post')
    expect(missing.status).toBe(404)
    expect(missing.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('no-such-post') })
    const bad = await call(app, contract, `/api/blog/posts/${encodeURIComponent("x'+y")}`)
    expect(bad.status).toBe(400)
  })

  it('GET /api/blog/posts/tag/{tag} lists only that tag, and the deprecated alias gives the Message Center tag', async () => {
    const tagged = await call(app, contract, '/api/blog/posts/tag/m365-message-center?limit=50')
    expect(tagged.status).toBe(200)
    expect(tagged.body.posts).toHaveLength(20)
    expect(tagged.body.posts.every((p: { slug: string }) => p.slug.startsWith('mc'))).toBe(true)
    expect(ghost.upstream.requests.at(-1)!.query.get('filter')).toBe('tag:m365-message-center')

    const alias = await call(app, contract, '/api/blog/posts/m365-message-center?limit=5&page=2')
    expect(alias.status).toBe(200)
    expect(alias.body.posts.map((p: { slug: string }) => p.slug)).toEqual(tagged.body.posts.slice(5, 10).map((p: { slug: string }) => p.slug))
    expect(alias.body.next_page).toBe('https://api.example.com/api/blog/posts/m365-message-center?page=3&limit=5')

    const none = await call(app, contract, '/api/blog/posts/tag/no-such-tag')
    expect(none.body).toMatchObject({ posts: [], next_page: null })
  })

  it('GET /api/blog/authors gives every author with exactly the fields of BlogAuthor', async () => {
    const { status, body } = await call(app, contract, '/api/blog/authors')
    expect(status).toBe(200)
    expect(body.authors).toHaveLength(2)
    const [old, current] = body.authors
    expect(Object.keys(old)).toHaveLength(20)
    expect(old).toMatchObject({ id: '5c9a4da453c79000bf19a6f5', slug: 'cameron', threads: null, bluesky: null, linkedin: null })
    expect(old).not.toHaveProperty('count')
    expect(current).toMatchObject({ id: '5ddc9b9510d8970038255d02', bluesky: 'ghost.org' })
  })
})

describe('blog upstream faults', () => {
  let ghost: FakeGhost

  beforeAll(async () => {
    ghost = await startFakeGhost()
  })
  afterAll(async () => {
    await ghost?.close()
  })

  // A fresh server per fault, so no cached answer hides the failure.
  it.each<[Fault, number]>([
    ['status500', 502],
    ['malformed', 502],
    ['timeout', 504],
  ])("%s from Ghost → %i, in each operation's error shape", async (fault, status) => {
    ghost.fault = { prefix: '/ghost/api/content/', kind: fault }
    const app = await startApp(ghostEnv(ghost))
    try {
      const contract = await loadContract(app.url)
      for (const path of ['/api/blog/info', '/api/blog/posts', '/api/blog/posts/welcome-short', '/api/blog/posts/tag/news']) {
        const res = await call(app, contract, path)
        expect(res.status, path).toBe(status)
        expect(res.body.error.code, path).toBe(status === 504 ? 'upstream_timeout' : 'upstream_failed')
        expect(res.body.error.message, path).toMatch(/Ghost/)
      }
      const authors = await call(app, contract, '/api/blog/authors')
      expect(authors.status).toBe(status)
      expect(authors.body).toEqual({ message: expect.stringMatching(/Ghost/), requestId: expect.any(String) })
    } finally {
      ghost.fault = null
      await app.stop()
    }
  })

  it('a wrong content key is an upstream failure, not a crash', async () => {
    const app = await startApp(ghostEnv(ghost, { GHOST_CONTENT_API_KEY: 'wrong' }))
    try {
      const contract = await loadContract(app.url)
      const res = await call(app, contract, '/api/blog/info')
      expect(res.status).toBe(502)
      expect(res.body.error.message).toMatch(/401/)
    } finally {
      await app.stop()
    }
  })
})

describe('without configuration, and policies and bookings', () => {
  let app: RunningApp
  let contract: Contract

  beforeAll(async () => {
    app = await startApp({ BOOKINGS_USERS: 'jane.doe,Sales', BOOKINGS_URL_TEMPLATE: 'https://outlook.office.com/book/{user}@contoso.com/' })
    contract = await loadContract(app.url)
  })
  afterAll(async () => {
    await app?.stop()
  })

  it('the blog answers 503 naming the variables, authors in the {message} shape', async () => {
    const info = await call(app, contract, '/api/blog/info')
    expect(info.status).toBe(503)
    expect(info.body.error).toMatchObject({ code: 'not_configured', message: expect.stringContaining('GHOST_CONTENT_API_KEY') })
    const authors = await call(app, contract, '/api/blog/authors')
    expect(authors.status).toBe(503)
    expect(authors.body.message).toContain('GHOST_URL')
    expect(Object.keys(authors.body).sort()).toEqual(['message', 'requestId'])
  })

  it('GET /api/policies lists the policies; the deprecated alias gives the same', async () => {
    const list = await call(app, contract, '/api/policies')
    expect(list.status).toBe(200)
    expect(list.body.count).toBe(list.body.policies.length)
    expect(list.body.policies.map((p: { slug: string }) => p.slug)).toContain('privacy-policy')
    expect(list.headers.get('access-control-allow-origin')).toBe('*')
    const legacy = await call(app, contract, '/api/policies/getAllPolicies')
    expect(legacy.body).toEqual(list.body)
  })

  it('GET /api/policies/{slug} gives one policy, 404 for others, 400 for a malformed slug', async () => {
    const one = await call(app, contract, '/api/policies/privacy-policy')
    expect(one.status).toBe(200)
    expect(one.body).toMatchObject({ slug: 'privacy-policy', category: 'privacy', lastUpdated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) })
    const missing = await call(app, contract, '/api/policies/no-such-policy')
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('not_found')
    const bad = await call(app, contract, '/api/policies/bad_slug!')
    expect(bad.status).toBe(400)
  })

  it('GET /api/bookings/{user} redirects a listed user to the filled template', async () => {
    const res = await call(app, contract, '/api/bookings/jane.doe')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('https://outlook.office.com/book/jane.doe@contoso.com/')
    expect(res.headers.get('x-request-id')).toBeTruthy()
    // The list is matched case-insensitively; the alias keeps its case.
    expect((await call(app, contract, '/api/bookings/sales')).headers.get('location')).toBe('https://outlook.office.com/book/sales@contoso.com/')
  })

  it('GET /api/bookings/{user} is 404 for an unlisted user and 400 for a malformed alias', async () => {
    const unlisted = await call(app, contract, '/api/bookings/eve')
    expect(unlisted.status).toBe(404)
    expect(unlisted.headers.get('location')).toBeNull()
    for (const bad of ['ja..ne', '.jane', encodeURIComponent('jane@contoso.com'), 'x'.repeat(65)]) {
      const res = await call(app, contract, `/api/bookings/${bad}`)
      expect(res.status, bad).toBe(400)
      expect(res.body.error.message, bad).toMatch(/user/)
    }
  })

  it('the OpenAPI document marks bookings experimental', () => {
    const op = contract.definition.paths['/bookings/{user}'].get
    expect(op['x-experimental']).toBe(true)
    expect(op.description).toMatch(/experimental/i)
    expect(op.responses['302'].headers.Location).toBeTruthy()
  })
})

import { setTimeout as sleep } from 'node:timers/promises'
import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import { fixtureJson, sendJson, startFakeUpstream, type FakeUpstream, type ReceivedRequest } from './fake-upstream'

// A Ghost site on loopback: the Content API (key in the query) and the Admin API (JWT checked the
// way Ghost checks it) over one in-memory list of posts. Creating a post whose slug is taken gets
// Ghost's `-2`, `-3` suffix; deleting answers 204 with no body. Seeded from recorded payloads.

export type Fault = 'status500' | 'timeout' | 'malformed' | null

export interface FakePost {
  id: string
  uuid: string
  slug: string
  title: string
  html: string | null
  status: 'published' | 'draft'
  url: string
  tags: { id: string; name: string; slug: string }[]
  published_at: string | null
  [key: string]: unknown
}

export interface FakeGhost {
  upstream: FakeUpstream
  url: string
  contentKey: string
  adminKey: string
  posts: FakePost[]
  /** Fault applied to requests whose path starts with the prefix (e.g. `/ghost/api/content/`). */
  fault: { prefix: string; kind: Fault } | null
  /** Post ids whose DELETE answers 500. */
  failDeleteIds: Set<string>
  addPost(slug: string, fields?: Partial<FakePost>): FakePost
  close(): Promise<void>
}

const hex = (n: number) => randomBytes(n).toString('hex')

export async function startFakeGhost(): Promise<FakeGhost> {
  const adminId = hex(12)
  const adminSecret = hex(32)
  const ghost = {} as FakeGhost
  const notFound = fixtureJson('ghost/error-admin-post-not-found-404.json')

  const seed = fixtureJson<{ posts: FakePost[] }>('ghost/content-v2-demo-posts-read-include-tags-authors.json').posts[0]

  const handler = async (req: ReceivedRequest, res: ServerResponse) => {
    if (ghost.fault && req.path.startsWith(ghost.fault.prefix)) {
      const kind = ghost.fault.kind
      if (kind === 'status500') return sendJson(res, 500, { errors: [{ message: 'Internal server error', type: 'InternalServerError' }] })
      if (kind === 'malformed') return sendJson(res, 200, '{"posts": [ {"id": ')
      if (kind === 'timeout') {
        await sleep(10_000)
        return sendJson(res, 200, {})
      }
    }
    if (req.path.startsWith('/ghost/api/content/')) return content(req, res)
    if (req.path.startsWith('/ghost/api/admin/')) return admin(req, res)
    sendJson(res, 404, fixtureJson('ghost/error-admin-post-not-found-404.json'))
  }

  function page<T>(items: T[], req: ReceivedRequest) {
    const limit = Number(req.query.get('limit') ?? 15)
    const pageNo = Number(req.query.get('page') ?? 1)
    const pages = Math.max(1, Math.ceil(items.length / limit))
    return {
      items: items.slice((pageNo - 1) * limit, pageNo * limit),
      meta: { pagination: { page: pageNo, limit, pages, total: items.length, next: pageNo < pages ? pageNo + 1 : null, prev: pageNo > 1 ? pageNo - 1 : null } },
    }
  }

  function content(req: ReceivedRequest, res: ServerResponse) {
    if (req.query.get('key') !== ghost.contentKey)
      return sendJson(res, 401, { errors: [{ message: 'Authorization failed', context: 'Unknown Content API Key', type: 'NoPermissionError' }] })
    const rest = req.path.slice('/ghost/api/content/'.length)
    if (rest === 'settings/') return sendJson(res, 200, fixtureJson('ghost/content-v2-demo-settings.json'))
    if (rest === 'authors/') {
      // Two pages: an old Ghost's author, then one with the newer social fields.
      const second = req.query.get('page') === '2'
      const body = fixtureJson<{ authors: unknown[] }>(
        second ? 'ghost/content-authors-docs-example-with-social-fields.json' : 'ghost/content-v2-demo-authors-read-cameron.json',
      )
      return sendJson(res, 200, {
        ...body,
        meta: { pagination: { page: second ? 2 : 1, limit: 100, pages: 2, total: 2, next: second ? null : 2, prev: null } },
      })
    }
    const published = ghost.posts.filter((p) => p.status === 'published')
    if (rest === 'posts/') {
      const filter = req.query.get('filter')
      const tag = filter?.startsWith('tag:') ? filter.slice(4) : null
      const { items, meta } = page(tag ? published.filter((p) => p.tags.some((t) => t.slug === tag)) : published, req)
      return sendJson(res, 200, { posts: items, meta })
    }
    const bySlug = /^posts\/slug\/([^/]+)\/$/.exec(rest)
    const byId = /^posts\/([^/]+)\/$/.exec(rest)
    const post = bySlug ? published.find((p) => p.slug === decodeURIComponent(bySlug[1])) : byId ? published.find((p) => p.id === byId[1]) : undefined
    if (post) return sendJson(res, 200, { posts: [post] })
    sendJson(res, 404, notFound)
  }

  async function admin(req: ReceivedRequest, res: ServerResponse) {
    const token = /^Ghost (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1]
    try {
      if (!token || decodeProtectedHeader(token).kid !== adminId) throw new Error('kid')
      await jwtVerify(token, Buffer.from(adminSecret, 'hex'), { audience: '/admin/', algorithms: ['HS256'], maxTokenAge: 300 })
    } catch {
      return sendJson(res, 401, { errors: [{ message: 'Invalid token', type: 'UnauthorizedError' }] })
    }
    const rest = req.path.slice('/ghost/api/admin/'.length)
    if (rest === 'posts/' && req.method === 'GET') {
      const { items, meta } = page(ghost.posts, req)
      return sendJson(res, 200, { posts: items.map(({ id, slug, title, url }) => ({ id, slug, title, url })), meta })
    }
    if (rest === 'posts/' && req.method === 'POST') {
      const input = JSON.parse(req.body.toString()).posts[0]
      let slug = input.slug
      for (let n = 2; ghost.posts.some((p) => p.slug === slug); n++) slug = `${input.slug}-${n}`
      const created = ghost.addPost(slug, {
        title: input.title,
        html: input.html,
        status: input.status,
        published_at: input.published_at ?? null,
        tags: (input.tags ?? []).map((t: { name: string; slug: string }) => ({ id: hex(12), name: t.name, slug: t.slug })),
      })
      return sendJson(res, 201, { posts: [created] })
    }
    const del = /^posts\/([^/]+)\/$/.exec(rest)
    if (del && req.method === 'DELETE') {
      if (ghost.failDeleteIds.has(del[1])) return sendJson(res, 500, { errors: [{ message: 'Internal server error', type: 'InternalServerError' }] })
      const index = ghost.posts.findIndex((p) => p.id === del[1])
      if (index < 0) return sendJson(res, 404, notFound)
      ghost.posts.splice(index, 1)
      res.writeHead(204)
      res.end()
      return
    }
    sendJson(res, 404, fixtureJson('ghost/error-unknown-api-route-404.json'))
  }

  const upstream = await startFakeUpstream(handler)
  Object.assign(ghost, {
    upstream,
    url: upstream.url,
    contentKey: hex(13),
    adminKey: `${adminId}:${adminSecret}`,
    posts: [] as FakePost[],
    fault: null,
    failDeleteIds: new Set<string>(),
    addPost(slug: string, fields: Partial<FakePost> = {}) {
      const post: FakePost = { ...seed, id: hex(12), uuid: crypto.randomUUID(), slug, status: 'published', url: `${upstream.url}/${slug}/`, ...fields }
      ghost.posts.push(post)
      return post
    },
    close: () => upstream.close(),
  })
  ghost.posts.push({ ...seed, status: 'published' })
  return ghost
}

import 'server-only'
import { setTimeout as sleep } from 'node:timers/promises'
import { SignJWT } from 'jose'
import { ghostApiBase, GHOST, GHOST_ACCEPT_VERSION } from '@/lib/upstream/ghost'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { singleFlight } from '@/lib/upstream/cache'
import { parseUpstreamJson, upstreamFetch, UpstreamMalformed, UpstreamStatus, type UpstreamResponse } from '@/lib/upstream/http'
import { GhostAdminPost, GhostAdminPostsPayload, GraphMessagesPage, GraphTokenPayload, type GraphMessage } from '@/lib/office/schemas'

// Adapters for Microsoft Graph's Message Center (app-only token) and the Ghost Admin API (JWT).

const LOGIN = 'Microsoft login'
const GRAPH = 'Microsoft Graph'
const MAX_GRAPH_PAGES = 200
const MAX_GHOST_PAGES = 500
const MAX_RETRY_AFTER_S = 10

// ---------------------------------------------------------------- Microsoft Graph

interface Token {
  value: string
  expiresAt: number
}
let token: Token | undefined

/** An app-only Graph token (client credentials), reused until a minute before it expires. */
export async function getGraphToken(): Promise<string> {
  const { MS_TENANT_ID: tenant, MS_CLIENT_ID: clientId, MS_CLIENT_SECRET: secret } = config
  if (!tenant || !clientId || !secret)
    throw new AppError('not_configured', 'Microsoft Graph is not configured: set MS_TENANT_ID, MS_CLIENT_ID and MS_CLIENT_SECRET.')
  if (token && token.expiresAt > Date.now()) return token.value
  return singleFlight('office:graph-token', async () => {
    const url = new URL(`${encodeURIComponent(tenant)}/oauth2/v2.0/token`, withSlash(config.MS_LOGIN_URL))
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      scope: new URL('.default', withSlash(config.MS_GRAPH_URL)).toString(),
    })
    // A token request is safe to repeat, so it gets the same retries as a GET.
    const res = await upstreamFetch(LOGIN, url.toString(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
      retries: config.UPSTREAM_RETRIES,
    })
    const parsed = parseUpstreamJson(LOGIN, res.text(), GraphTokenPayload)
    token = { value: parsed.access_token, expiresAt: Date.now() + Math.max(0, parsed.expires_in - 60) * 1000 }
    return parsed.access_token
  })
}

const withSlash = (u: string) => (u.endsWith('/') ? u : `${u}/`)

/** GET on Graph, waiting out a 429's Retry-After (up to a few seconds) twice at most. */
async function graphGet(url: string, bearer: string) {
  for (let attempt = 0; ; attempt++) {
    const res = await upstreamFetch(GRAPH, url, {
      headers: { authorization: `Bearer ${bearer}`, accept: 'application/json' },
      acceptStatus: [429],
    })
    if (res.status !== 429) return res
    const wait = Number(res.headers.get('retry-after') ?? '1')
    if (attempt >= 2 || !(wait >= 0) || wait > MAX_RETRY_AFTER_S) throw new UpstreamStatus(GRAPH, 429, res.text().slice(0, 300))
    log.info('graph throttled, waiting', { seconds: wait })
    await sleep(wait * 1000)
  }
}

/** Every Message Center message, following `@odata.nextLink` to the last page. */
export async function fetchMessageCenterMessages(): Promise<GraphMessage[]> {
  const bearer = await getGraphToken()
  const graphOrigin = new URL(config.MS_GRAPH_URL).origin
  let next: string | null = new URL('v1.0/admin/serviceAnnouncement/messages', withSlash(config.MS_GRAPH_URL)).toString()
  const messages: GraphMessage[] = []
  for (let page = 0; next; page++) {
    if (page >= MAX_GRAPH_PAGES) throw new UpstreamMalformed(GRAPH, `more than ${MAX_GRAPH_PAGES} pages of messages`)
    // The token must only ever go to Graph, whatever a nextLink says.
    if (new URL(next).origin !== graphOrigin) throw new UpstreamMalformed(GRAPH, 'a nextLink pointed outside Graph')
    const res: UpstreamResponse = await graphGet(next, bearer).catch((error: unknown) => {
      // A revoked or expired token must not be reused by the next run.
      if (error instanceof UpstreamStatus && error.upstreamStatus === 401) token = undefined
      throw error
    })
    const payload = parseUpstreamJson(GRAPH, res.text(), GraphMessagesPage)
    messages.push(...payload.value)
    next = payload['@odata.nextLink'] ?? null
  }
  return messages
}

// ---------------------------------------------------------------- Ghost Admin API

const ADMIN_KEY = /^([0-9a-f]{1,64}):((?:[0-9a-f]{2}){16,128})$/i

export function parseAdminKey(key: string | undefined): { id: string; secret: Uint8Array } | null {
  const m = key ? ADMIN_KEY.exec(key.trim()) : null
  if (!m) return null
  return { id: m[1], secret: Uint8Array.from(Buffer.from(m[2], 'hex')) }
}

/** A short-lived Admin API token: HS256 over the hex-decoded secret, `kid` = key id, aud `/admin/`. */
export async function signGhostAdminToken(key: { id: string; secret: Uint8Array }, now = Math.floor(Date.now() / 1000)): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.id })
    .setIssuedAt(now)
    .setExpirationTime(now + 5 * 60)
    .setAudience('/admin/')
    .sign(key.secret)
}

function adminSetup() {
  const base = ghostApiBase('admin')
  if (!base || !config.GHOST_ADMIN_API_KEY) throw new AppError('not_configured', 'The blog Admin API is not configured: set GHOST_URL and GHOST_ADMIN_API_KEY.')
  const key = parseAdminKey(config.GHOST_ADMIN_API_KEY)
  if (!key) throw new AppError('not_configured', 'GHOST_ADMIN_API_KEY must have the form {id}:{hex secret}, as Ghost shows it under Integrations.')
  return { base, key }
}

async function adminHeaders(key: { id: string; secret: Uint8Array }): Promise<Record<string, string>> {
  return {
    authorization: `Ghost ${await signGhostAdminToken(key)}`,
    'accept-version': GHOST_ACCEPT_VERSION,
    accept: 'application/json',
  }
}

/** Every post on the blog (drafts and scheduled too): id, slug, title and url. */
export async function fetchAllAdminPosts(): Promise<GhostAdminPost[]> {
  const { base, key } = adminSetup()
  const posts: GhostAdminPost[] = []
  for (let page = 1; page <= MAX_GHOST_PAGES; page++) {
    const url = new URL('posts/', base)
    url.searchParams.set('limit', '100')
    url.searchParams.set('page', String(page))
    url.searchParams.set('fields', 'id,slug,title,url')
    const res = await upstreamFetch(GHOST, url.toString(), { headers: await adminHeaders(key) })
    const payload = parseUpstreamJson(GHOST, res.text(), GhostAdminPostsPayload)
    posts.push(...payload.posts)
    const next = payload.meta?.pagination?.next
    if (!next || next <= page || payload.posts.length === 0) return posts
  }
  throw new UpstreamMalformed(GHOST, `more than ${MAX_GHOST_PAGES} pages of posts`)
}

export interface NewPost {
  title: string
  slug: string
  html: string
  tag: string
  publishedAt: string | null
  excerpt: string | null
}

/** Creates and publishes one post from HTML. Never retried: a retry after a lost answer would duplicate it. */
export async function createGhostPost(post: NewPost): Promise<GhostAdminPost> {
  const { base, key } = adminSetup()
  const url = new URL('posts/', base)
  url.searchParams.set('source', 'html')
  const body = {
    posts: [
      {
        title: post.title,
        slug: post.slug,
        html: post.html,
        status: 'published',
        // Matched by slug when the tag exists, created with this name otherwise.
        tags: [{ name: post.tag, slug: post.tag }],
        ...(post.publishedAt ? { published_at: post.publishedAt } : {}),
        ...(post.excerpt ? { custom_excerpt: post.excerpt } : {}),
      },
    ],
  }
  const res = await upstreamFetch(GHOST, url.toString(), {
    method: 'POST',
    headers: { ...(await adminHeaders(key)), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const created = parseUpstreamJson(GHOST, res.text(), GhostAdminPostsPayload).posts[0]
  if (!created) throw new UpstreamMalformed(GHOST, 'no post in the create answer')
  return GhostAdminPost.parse(created)
}

/** Deletes one post (Ghost answers 204; a 404 means it is already gone). */
export async function deleteGhostPost(id: string): Promise<void> {
  const { base, key } = adminSetup()
  await upstreamFetch(GHOST, new URL(`posts/${encodeURIComponent(id)}/`, base).toString(), {
    method: 'DELETE',
    headers: await adminHeaders(key),
    acceptStatus: [404],
  })
}

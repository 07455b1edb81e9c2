import 'server-only'
import type { z } from 'zod'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { ghostApiBase, GHOST, GHOST_ACCEPT_VERSION } from '@/lib/upstream/ghost'
import { parseUpstreamJson, upstreamFetch } from '@/lib/upstream/http'
import {
  AUTHOR_OPTIONAL_FIELDS,
  GhostAuthorsPayload,
  GhostPostsPayload,
  GhostSettingsPayload,
  type BlogAuthor,
  type BlogInfo,
  type BlogPost,
  type BlogPostSummary,
  type GhostPost,
} from '@/lib/blog/schemas'

// Adapter for the Ghost Content API (public, read-only, keyed by the content API key). Ghost field
// names stop here: callers get our DTOs.

const MAX_AUTHOR_PAGES = 50

function contentSetup() {
  const base = ghostApiBase('content')
  if (!base || !config.GHOST_CONTENT_API_KEY) throw new AppError('not_configured', 'The blog is not configured: set GHOST_URL and GHOST_CONTENT_API_KEY.')
  return { base, key: config.GHOST_CONTENT_API_KEY }
}

/** GET one Content API resource; 404 comes back as null so callers can answer "not found". */
async function getContent<S extends z.ZodType>(resource: string, params: Record<string, string>, schema: S): Promise<z.output<S> | null> {
  const { base, key } = contentSetup()
  const url = new URL(resource, base)
  url.searchParams.set('key', key)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  const res = await upstreamFetch(GHOST, url.toString(), {
    headers: { accept: 'application/json', 'accept-version': GHOST_ACCEPT_VERSION },
    acceptStatus: [404],
  })
  if (res.status === 404) return null
  return parseUpstreamJson(GHOST, res.text(), schema)
}

const requireFound = <T>(value: T | null, what: string): T => {
  if (value === null) throw new AppError('upstream_failed', `${GHOST} answered 404 for ${what}; check GHOST_URL.`)
  return value
}

export function reshapePostSummary(p: GhostPost): BlogPostSummary {
  return {
    id: p.id,
    uuid: p.uuid,
    title: p.title,
    slug: p.slug,
    excerpt: p.custom_excerpt ?? p.excerpt,
    feature_image: p.feature_image,
    featured: p.featured,
    visibility: p.visibility,
    created_at: p.created_at,
    updated_at: p.updated_at,
    published_at: p.published_at,
    url: p.url,
    reading_time: p.reading_time,
    tags: p.tags.map(({ id, name, slug }) => ({ id, name, slug })),
    authors: p.authors.map(({ id, name, slug }) => ({ id, name, slug })),
  }
}

export const reshapePost = (p: GhostPost): BlogPost => ({ ...reshapePostSummary(p), html: p.html })

export function reshapeSettings(payload: z.output<typeof GhostSettingsPayload>): BlogInfo {
  const { title, description, logo, icon, url } = payload.settings
  return { title, description, logo, icon, url }
}

export async function fetchBlogInfo(): Promise<BlogInfo> {
  return reshapeSettings(requireFound(await getContent('settings/', {}, GhostSettingsPayload), 'settings'))
}

export interface PostPage {
  posts: BlogPostSummary[]
  page: number
  limit: number
  pages: number | null
  total: number | null
  next: number | null
}

/** One page of published posts, optionally only those carrying a tag (by slug). */
export async function fetchPostPage(page: number, limit: number, tag?: string): Promise<PostPage> {
  const params: Record<string, string> = { page: String(page), limit: String(limit), include: 'tags,authors' }
  // The tag is a validated slug (letters, digits, hyphens), so it cannot break out of the NQL filter.
  if (tag) params.filter = `tag:${tag}`
  const payload = requireFound(await getContent('posts/', params, GhostPostsPayload), 'posts')
  const pagination = payload.meta?.pagination
  return {
    posts: payload.posts.map(reshapePostSummary),
    page,
    limit,
    pages: pagination?.pages ?? null,
    total: pagination?.total ?? null,
    next: pagination ? (pagination.next ?? null) : payload.posts.length === limit ? page + 1 : null,
  }
}

const OBJECT_ID = /^[0-9a-f]{24}$/

/** A post by id or slug, or null when Ghost has none. */
export async function fetchPost(idOrSlug: string): Promise<BlogPost | null> {
  const params = { include: 'tags,authors' }
  const byId = OBJECT_ID.test(idOrSlug) ? await getContent(`posts/${idOrSlug}/`, params, GhostPostsPayload) : null
  // A 24-hex-digit string may also be a slug, so fall back to the slug lookup.
  const payload = byId ?? (await getContent(`posts/slug/${encodeURIComponent(idOrSlug)}/`, params, GhostPostsPayload))
  const post = payload?.posts[0]
  return post ? reshapePost(post) : null
}

/** Exactly the author fields existing clients read (BlogAuthor), in that order; the schema already turned absent fields into null. */
export function reshapeAuthor(a: z.output<typeof GhostAuthorsPayload>['authors'][number]): BlogAuthor {
  const optional = Object.fromEntries(AUTHOR_OPTIONAL_FIELDS.map((f) => [f, a[f]]))
  return { id: a.id, name: a.name, slug: a.slug, url: a.url, ...optional }
}

/** Every author, following Ghost's pagination to the end. */
export async function fetchAuthors(): Promise<BlogAuthor[]> {
  const authors: BlogAuthor[] = []
  for (let page = 1; page <= MAX_AUTHOR_PAGES; page++) {
    const payload = requireFound(await getContent('authors/', { page: String(page), limit: '100' }, GhostAuthorsPayload), 'authors')
    authors.push(...payload.authors.map(reshapeAuthor))
    const next = payload.meta?.pagination?.next
    if (!next || next <= page) return authors
  }
  return authors
}

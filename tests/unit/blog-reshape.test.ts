import { describe, expect, it } from 'vitest'
import { fixture } from '../../test-support/fake-upstream'
import {
  AUTHOR_OPTIONAL_FIELDS,
  BlogAuthor,
  BlogPageQuery,
  BlogPostParams,
  BlogTagParams,
  GhostAuthorsPayload,
  GhostPostsPayload,
  GhostSettingsPayload,
} from '@/lib/blog/schemas'
import { reshapeAuthor, reshapePost, reshapePostSummary, reshapeSettings } from '@/lib/blog/upstream'
import { ghostApiBase } from '@/lib/upstream/ghost'
import { listingUrl, toPostList } from '@/lib/blog/service'
import { parseUpstreamJson, UpstreamMalformed } from '@/lib/upstream/http'

const authorsOf = (file: string) => parseUpstreamJson('Ghost', fixture(file), GhostAuthorsPayload).authors.map(reshapeAuthor)

describe('authors', () => {
  it('turns the social fields an older Ghost lacks into null', () => {
    const [cameron] = authorsOf('ghost/content-v2-demo-authors-read-cameron.json')
    expect(cameron).toEqual({
      id: '5c9a4da453c79000bf19a6f5',
      name: 'Cameron Almeida',
      slug: 'cameron',
      url: 'https://demo.ghost.io/author/cameron/',
      profile_image: 'https://demo.ghost.io/content/images/2019/03/1c2f492a-a5d0-4d2d-b350-cdcdebc7e413.jpg',
      cover_image: null,
      bio: 'Editor at large.',
      website: 'https://example.com',
      location: 'Cape Town',
      facebook: 'example',
      twitter: '@example',
      meta_title: null,
      meta_description: null,
      threads: null,
      bluesky: null,
      mastodon: null,
      tiktok: null,
      youtube: null,
      instagram: null,
      linkedin: null,
    })
  })

  it('keeps the newer social fields and drops fields the API does not publish', () => {
    const [cameron] = authorsOf('ghost/content-authors-docs-example-with-social-fields.json')
    expect(cameron.bluesky).toBe('ghost.org')
    expect(Object.keys(cameron).sort()).toEqual(['id', 'name', 'slug', 'url', ...AUTHOR_OPTIONAL_FIELDS].sort())
    expect(BlogAuthor.parse(cameron)).toEqual(cameron)
    // `count` (include=count.posts) is Ghost's, not one the API publishes.
    expect(authorsOf('ghost/content-v2-demo-authors-read-cameron.json')[0]).not.toHaveProperty('count')
  })

  it('refuses an author without a required field', () => {
    const body = JSON.stringify({ authors: [{ id: 'x', name: 'No slug', url: 'https://b/author/x/' }] })
    expect(() => parseUpstreamJson('Ghost', body, GhostAuthorsPayload)).toThrow(UpstreamMalformed)
  })
})

describe('posts', () => {
  it('reshapes a post with tags and authors to our fields', () => {
    const [post] = parseUpstreamJson('Ghost', fixture('ghost/content-v2-demo-posts-read-include-tags-authors.json'), GhostPostsPayload).posts
    const dto = reshapePost(post)
    expect(dto).toMatchObject({
      id: '5c7ece47da174000c0c5c6d7',
      slug: 'welcome-short',
      title: 'Welcome',
      excerpt: "Welcome, it's great to have you here.",
      featured: false,
      published_at: '2012-11-27T15:30:00.000+00:00',
      url: 'https://demo.ghost.io/welcome-short/',
      html: "<p>👋 Welcome, it's great to have you here.</p>",
      tags: [{ id: '59799bbd6ebb2f00243a33db', name: 'Getting Started', slug: 'getting-started' }],
      authors: [{ id: '5951f5fca366002ebd5dbef7', name: 'Ghost', slug: 'ghost' }],
      reading_time: null,
    })
    expect(reshapePostSummary(post)).not.toHaveProperty('html')
  })

  it('gives empty tag and author lists when the post was read without include', () => {
    const [post] = parseUpstreamJson('Ghost', fixture('ghost/content-v2-demo-posts-read-welcome-short.json'), GhostPostsPayload).posts
    expect(reshapePostSummary(post)).toMatchObject({ tags: [], authors: [], visibility: null })
  })

  it('links the next page of our own listing, and none on the last page', () => {
    const page = { posts: [], page: 2, limit: 5, pages: 3, total: 12 }
    expect(toPostList({ ...page, next: 3 }, '/blog/posts').next_page).toBe('http://localhost:3000/api/blog/posts?page=3&limit=5')
    expect(toPostList({ ...page, next: null }, '/blog/posts').next_page).toBeNull()
    expect(listingUrl('/blog/posts/tag/news', 2, 15, 'https://api.example.com')).toBe('https://api.example.com/api/blog/posts/tag/news?page=2&limit=15')
  })
})

describe('settings', () => {
  it('keeps title, description, logo, icon and url (null when an old Ghost omits it)', () => {
    const info = reshapeSettings(parseUpstreamJson('Ghost', fixture('ghost/content-v2-demo-settings.json'), GhostSettingsPayload))
    expect(info).toEqual({
      title: 'Ghost',
      description: 'The professional publishing platform',
      logo: 'https://demo.ghost.io/content/images/2014/09/Ghost-Transparent-for-DARK-BG.png',
      icon: 'https://demo.ghost.io/content/images/2017/07/favicon.png',
      url: null,
    })
  })
})

describe('inputs', () => {
  it.each([
    [{}, { page: 1, limit: 15 }],
    [
      { limit: '100', page: '3' },
      { page: 3, limit: 100 },
    ],
    [{ limit: '1' }, { page: 1, limit: 1 }],
  ])('accepts page query %j', (input, expected) => {
    expect(BlogPageQuery.parse(input)).toEqual(expected)
  })

  it.each([{ limit: '0' }, { limit: '101' }, { limit: 'ten' }, { page: '0' }, { page: '1.5' }, { other: '1' }])('refuses page query %j', (input) => {
    expect(BlogPageQuery.safeParse(input).success).toBe(false)
  })

  it('accepts ids and slugs, lower-cased, and refuses anything that could leave the path or the filter', () => {
    expect(BlogPostParams.parse({ idOrSlug: 'Welcome-Short' })).toEqual({ idOrSlug: 'welcome-short' })
    expect(BlogPostParams.parse({ idOrSlug: '5c7ece47da174000c0c5c6d7' }).idOrSlug).toBe('5c7ece47da174000c0c5c6d7')
    for (const bad of ['../settings', 'a b', "news'+tag:x", 'tag,other', '-leading', 'x'.repeat(192)])
      expect(BlogTagParams.safeParse({ tag: bad }).success, bad).toBe(false)
  })

  it('builds API bases under GHOST_URL, with or without a trailing slash or a sub-path', () => {
    expect(ghostApiBase('content', 'https://blog.example.com')).toBe('https://blog.example.com/ghost/api/content/')
    expect(ghostApiBase('admin', 'https://example.com/blog/')).toBe('https://example.com/blog/ghost/api/admin/')
    expect(ghostApiBase('admin', undefined)).toBeNull()
  })
})

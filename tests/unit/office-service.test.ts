import { describe, expect, it } from 'vitest'
import { fixtureJson } from '../../test-support/fake-upstream'
import { GraphMessage, GraphMessagesPage, type GhostAdminPost } from '@/lib/office/schemas'
import { deduplicate, publish, type OfficeServices } from '@/lib/office/service'
import type { NewPost } from '@/lib/office/upstream'

// An in-memory blog that suffixes taken slugs the way Ghost does.
function fakeBlog(initial: GhostAdminPost[] = [], messages: GraphMessage[] = []) {
  const posts = [...initial]
  const calls = { created: [] as NewPost[], deleted: [] as string[] }
  let nextId = 1000
  const failDelete = new Set<string>()
  const services: OfficeServices = {
    fetchMessages: async () => messages,
    fetchPosts: async () => posts.map((p) => ({ ...p })),
    createPost: async (post) => {
      calls.created.push(post)
      let slug = post.slug
      for (let n = 2; posts.some((p) => p.slug === slug); n++) slug = `${post.slug}-${n}`
      const created = { id: String(nextId++), slug, title: post.title, url: `https://blog.example/${slug}/` }
      posts.push(created)
      return created
    },
    deletePost: async (id) => {
      if (failDelete.has(id)) throw new Error('Ghost answered HTTP 500.')
      calls.deleted.push(id)
      posts.splice(
        posts.findIndex((p) => p.id === id),
        1,
      )
    },
  }
  return { posts, calls, failDelete, services }
}

const post = (id: string, slug: string): GhostAdminPost => ({ id, slug, title: `Title ${slug}`, url: `https://blog.example/${slug}/` })
const realMessages = () => GraphMessagesPage.parse(fixtureJson('microsoft-graph/serviceAnnouncement-messages-list-value-4-real-messages.json')).value

describe('deduplicate', () => {
  const seeded = () => fakeBlog([post('a', 'mc1'), post('b', 'mc1-2'), post('c', 'mc1-3'), post('d', 'mc2-2'), post('e', 'hello')])

  it('only reports in a dry run', async () => {
    const blog = seeded()
    const report = await deduplicate(true, blog.services)
    expect(blog.calls.deleted).toEqual([])
    expect(report).toMatchObject({ dryRun: true, scanned: 5, duplicatesFound: 2, deleted: 0, failed: 0 })
    expect(report.duplicates).toEqual([
      { id: 'b', slug: 'mc1-2', title: 'Title mc1-2', url: 'https://blog.example/mc1-2/', deleted: false },
      { id: 'c', slug: 'mc1-3', title: 'Title mc1-3', url: 'https://blog.example/mc1-3/', deleted: false },
    ])
    expect(report.message).toMatch(/dry run/i)
  })

  it('deletes exactly the duplicates, and a failed delete is counted while the run goes on', async () => {
    const blog = seeded()
    blog.failDelete.add('b')
    const report = await deduplicate(false, blog.services)
    expect(blog.calls.deleted).toEqual(['c'])
    expect(report).toMatchObject({ dryRun: false, duplicatesFound: 2, deleted: 1, failed: 1 })
    expect(report.duplicates.map((d) => [d.id, d.deleted])).toEqual([
      ['b', false],
      ['c', true],
    ])
    expect(blog.posts.map((p) => p.slug)).toEqual(['mc1', 'mc1-2', 'mc2-2', 'hello'])
  })
})

describe('publish', () => {
  it('publishes each message once: a second run creates nothing', async () => {
    const blog = fakeBlog([post('x', 'mc237741')], realMessages())
    const first = await publish({ dryRun: false, limit: 50 }, blog.services, 'mc-tag')
    expect(first).toMatchObject({ scanned: 4, published: 3, skipped: 1, failed: 0, pending: 0 })
    expect(blog.calls.created.map((p) => p.slug).sort()).toEqual(['mc237349', 'mc247825', 'mc248201'])
    expect(blog.calls.created.every((p) => p.tag === 'mc-tag')).toBe(true)
    expect(first.messages.find((m) => m.messageId === 'MC237741')).toMatchObject({ outcome: 'skipped', postId: 'x' })

    const second = await publish({ dryRun: false, limit: 50 }, blog.services, 'mc-tag')
    expect(second).toMatchObject({ scanned: 4, published: 0, skipped: 4, failed: 0 })
    expect(blog.calls.created).toHaveLength(3)
    expect(blog.posts.filter((p) => /-\d+$/.test(p.slug))).toEqual([])
  })

  it('creates nothing in a dry run and reports what is pending', async () => {
    const blog = fakeBlog([], realMessages())
    const report = await publish({ dryRun: true, limit: 50 }, blog.services)
    expect(blog.calls.created).toEqual([])
    expect(report).toMatchObject({ dryRun: true, published: 0, pending: 4 })
  })

  it('creates at most `limit` posts, newest first, and leaves the rest pending', async () => {
    const blog = fakeBlog([], realMessages())
    const report = await publish({ dryRun: false, limit: 2 }, blog.services)
    expect(report).toMatchObject({ published: 2, pending: 2 })
    const starts = realMessages()
      .map((m) => [m.id, m.startDateTime!] as const)
      .sort((a, b) => b[1].localeCompare(a[1]))
    expect(blog.calls.created.map((p) => p.slug)).toEqual(starts.slice(0, 2).map(([id]) => id.toLowerCase()))
  })

  it('reports a slug Ghost had to suffix, and skips ids that are not Message Center numbers', async () => {
    const msgs = [GraphMessage.parse({ id: 'MC1', title: 'one' }), GraphMessage.parse({ id: 'notice-7', title: 'odd' })]
    const blog = fakeBlog([], msgs)
    // Another writer takes the slug between the scan and the create.
    const create = blog.services.createPost
    blog.services.createPost = async (p) => {
      blog.posts.push(post('other', p.slug))
      return create(p)
    }
    const report = await publish({ dryRun: false, limit: 5 }, blog.services)
    expect(report).toMatchObject({ published: 0, failed: 1, skipped: 1 })
    expect(report.messages.find((m) => m.messageId === 'MC1')?.reason).toMatch(/mc1-2/)
  })
})

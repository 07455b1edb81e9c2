import 'server-only'
import { config } from '@/lib/config'
import { log } from '@/lib/log'
import { singleFlight } from '@/lib/upstream/cache'
import { buildMessagePost, parseSuffixedSlug, slugForMessage } from '@/lib/office/message-post'
import { createGhostPost, deleteGhostPost, fetchAllAdminPosts, fetchMessageCenterMessages } from '@/lib/office/upstream'
import type { DeduplicationReport, DuplicateEntry, GhostAdminPost, GraphMessage, PublishEntry, PublishReport } from '@/lib/office/schemas'

// The two Message Center jobs. Both read the whole blog first and decide from slugs: a message
// MC123 lives at slug mc123, and Ghost's auto-suffixed mc123-2, mc123-3… are duplicates of it.

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Posts whose slug is an auto-suffixed copy of another post's slug that exists on the blog. */
export function findDuplicates(posts: readonly GhostAdminPost[]): GhostAdminPost[] {
  const slugs = new Set(posts.map((p) => p.slug))
  return posts.filter((p) => {
    const parsed = parseSuffixedSlug(p.slug)
    return parsed !== null && slugs.has(parsed.base)
  })
}

export interface OfficeServices {
  fetchMessages: () => Promise<GraphMessage[]>
  fetchPosts: typeof fetchAllAdminPosts
  createPost: typeof createGhostPost
  deletePost: typeof deleteGhostPost
}

const liveServices: OfficeServices = {
  fetchMessages: fetchMessageCenterMessages,
  fetchPosts: fetchAllAdminPosts,
  createPost: createGhostPost,
  deletePost: deleteGhostPost,
}

export async function deduplicate(dryRun: boolean, services: OfficeServices = liveServices): Promise<DeduplicationReport> {
  // Concurrent runs share one, so two callers never delete the same posts twice.
  return singleFlight(`office:dedupe:${dryRun}`, async () => {
    const posts = await services.fetchPosts()
    const found = findDuplicates(posts)
    const duplicates: DuplicateEntry[] = []
    let failed = 0
    for (const post of found) {
      let deleted = false
      if (!dryRun) {
        try {
          await services.deletePost(post.id)
          deleted = true
        } catch (error) {
          failed++
          log.warn('duplicate post not deleted', { id: post.id, slug: post.slug, error: errorText(error) })
        }
      }
      duplicates.push({ id: post.id, slug: post.slug, title: post.title, url: post.url, deleted })
    }
    const deleted = duplicates.filter((d) => d.deleted).length
    return {
      message: dedupeMessage(dryRun, posts.length, found.length, deleted, failed),
      dryRun,
      scanned: posts.length,
      duplicatesFound: found.length,
      deleted,
      failed,
      duplicates,
    }
  })
}

function dedupeMessage(dryRun: boolean, scanned: number, found: number, deleted: number, failed: number): string {
  const head = `Scanned ${scanned} post${scanned === 1 ? '' : 's'}: ${found} duplicate${found === 1 ? '' : 's'} found.`
  if (found === 0) return head
  if (dryRun) return `${head} Dry run: nothing deleted; call with dryRun=false to delete them.`
  return `${head} Deleted ${deleted}${failed ? `, ${failed} failed (see the logs; run again to retry)` : ''}.`
}

export async function publish(
  { dryRun, limit }: { dryRun: boolean; limit: number },
  services: OfficeServices = liveServices,
  tag = config.MESSAGE_CENTER_TAG,
): Promise<PublishReport> {
  // One run at a time per instance: racing runs would each create the same post.
  return singleFlight(`office:publish:${dryRun}:${limit}`, async () => {
    const messages = await services.fetchMessages()
    const posts = await services.fetchPosts()
    const bySlug = new Map(posts.map((p) => [p.slug, p]))
    const entries: PublishEntry[] = []
    let created = 0
    // The newest messages first, so a limited run publishes what readers care about.
    const ordered = [...messages].sort((a, b) => (b.startDateTime ?? '').localeCompare(a.startDateTime ?? ''))
    for (const message of ordered) {
      const entry = (outcome: PublishEntry['outcome'], fields: Partial<PublishEntry> = {}): PublishEntry => ({
        messageId: message.id,
        slug: slugForMessage(message.id),
        title: message.title,
        outcome,
        reason: null,
        postId: null,
        url: null,
        ...fields,
      })
      const post = buildMessagePost(message)
      if (!post) {
        entries.push(entry('skipped', { reason: 'The id is not a Message Center number (MC followed by digits).' }))
        continue
      }
      const existing = bySlug.get(post.slug)
      if (existing) {
        entries.push(entry('skipped', { reason: 'Already on the blog.', postId: existing.id, url: existing.url || null }))
        continue
      }
      if (dryRun || created >= limit) {
        entries.push(entry('pending', { reason: dryRun ? 'Dry run.' : `Beyond this run's limit of ${limit}.` }))
        continue
      }
      created++
      try {
        const result = await services.createPost({ ...post, tag })
        bySlug.set(result.slug, result)
        // Ghost suffixes the slug when it is taken; that means a post appeared since the scan.
        const raced = result.slug !== post.slug
        entries.push(
          entry(raced ? 'failed' : 'published', {
            postId: result.id,
            url: result.url || null,
            reason: raced ? `Created as ${result.slug}: the slug was taken meanwhile; run deduplicate.` : null,
          }),
        )
      } catch (error) {
        log.warn('message center post not created', { messageId: message.id, error: errorText(error) })
        entries.push(entry('failed', { reason: errorText(error) }))
      }
    }
    const count = (o: PublishEntry['outcome']) => entries.filter((e) => e.outcome === o).length
    const report = {
      dryRun,
      scanned: messages.length,
      published: count('published'),
      skipped: count('skipped'),
      failed: count('failed'),
      pending: count('pending'),
      messages: entries,
    }
    return { message: publishMessage(report), ...report }
  })
}

function publishMessage(r: Omit<PublishReport, 'message' | 'messages'>): string {
  const parts = [`Read ${r.scanned} message${r.scanned === 1 ? '' : 's'}`, `${r.published} published`, `${r.skipped} skipped`, `${r.failed} failed`]
  if (r.pending) parts.push(`${r.pending} ${r.dryRun ? 'would be published' : 'left for the next run'}`)
  return `${parts.join(', ')}.${r.dryRun ? ' Dry run: nothing was created.' : ''}`
}

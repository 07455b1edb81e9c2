import 'server-only'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { cached } from '@/lib/upstream/cache'
import { fetchAuthors, fetchBlogInfo, fetchPost, fetchPostPage, type PostPage } from '@/lib/blog/upstream'
import type { BlogAuthorList, BlogInfo, BlogPageQuery, BlogPost, BlogPostList } from '@/lib/blog/schemas'

// Blog reads are public and change rarely: a minute of freshness, and the last good answer is
// served for up to an hour while Ghost is failing.
const CACHE = { ttlS: 60, staleS: 3600 }

/** Absolute URL of a listing page of ours, so `next_page` can be followed as is. */
export function listingUrl(path: string, page: number, limit: number, base = config.PUBLIC_BASE_URL): string {
  const url = new URL(`/api${path}`, base)
  url.searchParams.set('page', String(page))
  url.searchParams.set('limit', String(limit))
  return url.toString()
}

export function toPostList(result: PostPage, path: string): BlogPostList {
  return {
    posts: result.posts,
    next_page: result.next ? listingUrl(path, result.next, result.limit) : null,
    pagination: { page: result.page, limit: result.limit, pages: result.pages, total: result.total },
  }
}

export const getBlogInfo = (): Promise<BlogInfo> => cached('blog:info', CACHE, fetchBlogInfo)

export async function listPosts({ page, limit }: BlogPageQuery): Promise<BlogPostList> {
  const result = await cached(`blog:posts:${page}:${limit}`, CACHE, () => fetchPostPage(page, limit))
  return toPostList(result, '/blog/posts')
}

export async function listPostsByTag(tag: string, { page, limit }: BlogPageQuery, path = `/blog/posts/tag/${tag}`): Promise<BlogPostList> {
  const result = await cached(`blog:tag:${tag}:${page}:${limit}`, CACHE, () => fetchPostPage(page, limit, tag))
  return toPostList(result, path)
}

export async function getPost(idOrSlug: string): Promise<BlogPost> {
  const post = await cached(`blog:post:${idOrSlug}`, CACHE, () => fetchPost(idOrSlug))
  if (!post) throw new AppError('not_found', `No published post has the id or slug "${idOrSlug}".`)
  return post
}

export async function listAuthors(): Promise<BlogAuthorList> {
  return { authors: await cached('blog:authors', CACHE, fetchAuthors) }
}

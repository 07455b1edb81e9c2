import { defineOperation } from '@/lib/http/operation'
import { BlogAuthorList, BlogInfo, BlogPageQuery, BlogPost, BlogPostList, BlogPostParams, BlogTagParams } from '@/lib/blog/schemas'

const UPSTREAM_ERRORS = ['upstream_failed', 'upstream_timeout', 'not_configured'] as const
const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300'

export const getBlogInfoOp = defineOperation({
  method: 'GET',
  path: '/blog/info',
  operationId: 'getBlogInfo',
  tag: 'Blog',
  summary: 'Blog title, description, logo, icon and URL',
  success: { description: 'Blog metadata', schema: BlogInfo },
  examples: [{ name: 'info', summary: 'The blog' }],
  errors: [...UPSTREAM_ERRORS],
  cacheControl: CACHE_CONTROL,
})

export const listBlogPostsOp = defineOperation({
  method: 'GET',
  path: '/blog/posts',
  operationId: 'listBlogPosts',
  tag: 'Blog',
  summary: 'Published posts, newest first, one page at a time',
  description: '`next_page` is the URL of the following page (null on the last one).',
  query: BlogPageQuery,
  success: { description: 'One page of posts', schema: BlogPostList },
  examples: [
    { name: 'firstPage', summary: 'The newest posts, two per page', query: { limit: '2' } },
    { name: 'pageZero', summary: 'A page number below 1', query: { page: '0' } },
  ],
  errors: [...UPSTREAM_ERRORS],
  cacheControl: CACHE_CONTROL,
})

export const getBlogPostOp = defineOperation({
  method: 'GET',
  path: '/blog/posts/{idOrSlug}',
  operationId: 'getBlogPost',
  tag: 'Blog',
  summary: 'One published post by id or slug, with its HTML body',
  params: BlogPostParams,
  success: { description: 'The post', schema: BlogPost },
  examples: [
    { name: 'bySlug', summary: 'A post by its slug', params: { idOrSlug: 'welcome-short' } },
    { name: 'notFound', summary: 'No published post has this slug', params: { idOrSlug: 'no-such-post' } },
  ],
  errors: ['not_found', ...UPSTREAM_ERRORS],
  cacheControl: CACHE_CONTROL,
})

export const listBlogPostsByTagOp = defineOperation({
  method: 'GET',
  path: '/blog/posts/tag/{tag}',
  operationId: 'listBlogPostsByTag',
  tag: 'Blog',
  summary: 'Published posts carrying a tag',
  description: 'Message Center posts carry the `m365-message-center` tag (configurable). An unknown tag gives an empty list.',
  params: BlogTagParams,
  query: BlogPageQuery,
  success: { description: 'One page of posts', schema: BlogPostList },
  examples: [{ name: 'tagged', summary: 'Posts tagged getting-started', params: { tag: 'getting-started' } }],
  errors: [...UPSTREAM_ERRORS],
  cacheControl: CACHE_CONTROL,
})

export const listMessageCenterPostsOp = defineOperation({
  method: 'GET',
  path: '/blog/posts/m365-message-center',
  operationId: 'listMessageCenterPosts',
  deprecated: true,
  tag: 'Blog',
  summary: 'Message Center posts (older path; use /blog/posts/tag/{tag})',
  description:
    '**Deprecated** alias kept for existing clients; same as `/blog/posts/tag/{tag}` with the Message Center tag. Shadows a post whose slug would be `m365-message-center`.',
  query: BlogPageQuery,
  success: { description: 'One page of Message Center posts', schema: BlogPostList },
  examples: [{ name: 'firstPage', summary: 'The newest Message Center posts' }],
  errors: [...UPSTREAM_ERRORS],
  cacheControl: CACHE_CONTROL,
})

export const listBlogAuthorsOp = defineOperation({
  method: 'GET',
  path: '/blog/authors',
  operationId: 'listBlogAuthors',
  tag: 'Blog',
  summary: 'The blog authors',
  description: 'Every author with the same fields; social fields an older Ghost does not have are null. Errors are `{"message": …}`.',
  success: { description: 'The authors', schema: BlogAuthorList },
  examples: [{ name: 'all', summary: 'Every author' }],
  errors: [...UPSTREAM_ERRORS],
  errorFormat: 'message',
  cacheControl: CACHE_CONTROL,
})

export const blogOperations = [getBlogInfoOp, listBlogPostsOp, listMessageCenterPostsOp, listBlogPostsByTagOp, getBlogPostOp, listBlogAuthorsOp]

import { listBlogPostsOp } from '@/lib/blog/operations'
import { listPosts } from '@/lib/blog/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/blog/posts - one page of published posts
export const GET = route(listBlogPostsOp, ({ query }) => listPosts(query))

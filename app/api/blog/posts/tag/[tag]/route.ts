import { listBlogPostsByTagOp } from '@/lib/blog/operations'
import { listPostsByTag } from '@/lib/blog/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/blog/posts/tag/{tag} - posts carrying a tag
export const GET = route(listBlogPostsByTagOp, ({ params, query }) => listPostsByTag(params.tag, query))

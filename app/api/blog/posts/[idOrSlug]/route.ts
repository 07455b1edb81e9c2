import { getBlogPostOp } from '@/lib/blog/operations'
import { getPost } from '@/lib/blog/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/blog/posts/{idOrSlug} - one post with its body
export const GET = route(getBlogPostOp, ({ params }) => getPost(params.idOrSlug))

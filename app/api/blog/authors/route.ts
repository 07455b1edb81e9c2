import { listBlogAuthorsOp } from '@/lib/blog/operations'
import { listAuthors } from '@/lib/blog/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/blog/authors - the blog authors (spec fields; errors as {message})
export const GET = route(listBlogAuthorsOp, () => listAuthors())

import { getBlogInfoOp } from '@/lib/blog/operations'
import { getBlogInfo } from '@/lib/blog/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/blog/info - blog metadata
export const GET = route(getBlogInfoOp, () => getBlogInfo())

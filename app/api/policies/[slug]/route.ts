import { route } from '@/lib/http/route'
import { getPolicyOp } from '@/lib/policies/operations'
import { getPolicy } from '@/lib/policies/service'

export const dynamic = 'force-dynamic'

// GET /api/policies/{slug} - one policy
export const GET = route(getPolicyOp, ({ params }) => getPolicy(params.slug))

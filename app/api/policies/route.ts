import { route } from '@/lib/http/route'
import { listPoliciesOp } from '@/lib/policies/operations'
import { listPolicies } from '@/lib/policies/service'

export const dynamic = 'force-dynamic'

// GET /api/policies - every platform policy
export const GET = route(listPoliciesOp, () => listPolicies())

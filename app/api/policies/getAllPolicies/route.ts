import { route } from '@/lib/http/route'
import { listPoliciesLegacyOp } from '@/lib/policies/operations'
import { listPolicies } from '@/lib/policies/service'

export const dynamic = 'force-dynamic'

// GET /api/policies/getAllPolicies - deprecated alias of /api/policies
export const GET = route(listPoliciesLegacyOp, () => listPolicies())

import { getHealthOp } from '@/lib/health/operations'
import { getHealth } from '@/lib/health/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/health - liveness and readiness
export const GET = route(getHealthOp, ({ query }) => getHealth(query.probe))

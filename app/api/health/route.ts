import { getHealthOp } from '@/lib/health/operations'
import { getHealth } from '@/lib/health/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/health - liveness and dependency checks
export const GET = route(getHealthOp, async () => {
  const { result, httpStatus } = await getHealth()
  return Response.json(result, { status: httpStatus, headers: { 'cache-control': 'no-store' } })
})

import { route } from '@/lib/http/route'
import { getPdsUptimeOp } from '@/lib/pds/operations'
import { getUptimeStats } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/uptimeStats - BetterStack SLA summary of the PDS monitor
export const GET = route(getPdsUptimeOp, ({ query }) => getUptimeStats(query))

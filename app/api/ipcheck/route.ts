import { route } from '@/lib/http/route'
import { checkIpOp, checkIpsOp } from '@/lib/ipcheck/operations'
import { checkIp, checkIps } from '@/lib/ipcheck/service'

export const dynamic = 'force-dynamic'

// GET /api/ipcheck - geolocation and network data for an IP address
export const GET = route(checkIpOp, ({ query, clientIp }) => checkIp(query, clientIp))

// POST /api/ipcheck - up to 100 addresses, per-item results
export const POST = route(checkIpsOp, ({ body }) => checkIps(body))

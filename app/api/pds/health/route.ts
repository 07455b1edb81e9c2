import { route } from '@/lib/http/route'
import { getPdsHealthOp } from '@/lib/pds/operations'
import { getPdsHealth } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/health - the PDS's own health report and server description
export const GET = route(getPdsHealthOp, () => getPdsHealth())

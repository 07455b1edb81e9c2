import { route } from '@/lib/http/route'
import { verifyPdsHandleOp } from '@/lib/pds/operations'
import { verifyHandle } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/verifyHandle - whether a handle can still be registered
export const GET = route(verifyPdsHandleOp, ({ query }) => verifyHandle(query.handle))

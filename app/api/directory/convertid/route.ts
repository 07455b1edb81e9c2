import { convertIds } from '@/lib/directory/convert-id'
import { convertIdsOp } from '@/lib/directory/operations'
import { route } from '@/lib/http/route'
import { support } from '@/lib/support'

export const dynamic = 'force-dynamic'

// POST /api/directory/convertid - batch object ID ↔ SID
export const POST = route(convertIdsOp, ({ body }) => ({ results: convertIds(body.ids), support: support() }))

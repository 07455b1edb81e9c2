import { convertId } from '@/lib/directory/convert-id'
import { convertIdOp } from '@/lib/directory/operations'
import { route } from '@/lib/http/route'
import { support } from '@/lib/support'

export const dynamic = 'force-dynamic'

// GET /api/directory/convertid/{id} - object ID ↔ SID
export const GET = route(convertIdOp, ({ params }) => ({ ...convertId(params.id), support: support() }))

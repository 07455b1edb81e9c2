import { generateGuids } from '@/lib/generate/guid'
import { generateGuidsOp } from '@/lib/generate/operations'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/generate/guid - random or time-ordered GUIDs
export const GET = route(generateGuidsOp, ({ query }) => generateGuids(query))

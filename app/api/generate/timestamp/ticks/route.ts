import { convertTicksOp } from '@/lib/generate/operations'
import { convertTicks } from '@/lib/generate/ticks'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/generate/timestamp/ticks - now, or a given instant, as .NET ticks (and back)
export const GET = route(convertTicksOp, ({ query }) => convertTicks(query))

import { withAccess } from '@/lib/access/server'
import { runCompare } from '@/lib/query/compare'
import { CompareRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/compare - a range and its baseline window: both histograms and what changed per column
export const POST = withAccess('/query/api/compare', { body: CompareRequest }, ({ body }) => runCompare(body))

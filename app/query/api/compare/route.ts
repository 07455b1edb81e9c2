import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { runCompare } from '@/lib/query/compare'
import { CompareRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/compare - a range and its baseline window: both histograms and what changed per column
export const POST = withAccess('/query/api/compare', { body: CompareRequest }, ({ body, identity }) => queryAs(identity, () => runCompare(body)))

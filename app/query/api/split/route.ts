import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { SplitRequest } from '@/lib/query/schemas'
import { runSplit } from '@/lib/query/split'

export const dynamic = 'force-dynamic'

// POST /query/api/split - rows per time bucket stacked by the top values of one column and "other"
export const POST = withAccess('/query/api/split', { body: SplitRequest }, ({ body, identity }) => queryAs(identity, () => runSplit(body)))

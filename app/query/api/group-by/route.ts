import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { runGroupBy } from '@/lib/query/group-by'
import { GroupByRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/group-by - counts, error rate, p50/p95 or bytes of a range and filter grouped by
// one or two columns, with the SQL that ran
export const POST = withAccess('/query/api/group-by', { body: GroupByRequest }, ({ body, identity }) => queryAs(identity, () => runGroupBy(body)))

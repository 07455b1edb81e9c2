import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { runPatterns } from '@/lib/query/patterns'
import { PatternsRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/patterns - one text column's values over the newest matching rows of a range,
// clustered into templates (numbers, ids, addresses… replaced), with counts and a filter for each
export const POST = withAccess('/query/api/patterns', { body: PatternsRequest }, ({ body, identity }) => queryAs(identity, () => runPatterns(body)))

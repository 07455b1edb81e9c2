import { withAccess } from '@/lib/access/server'
import { readJson } from '@/lib/http/route'
import { runGroupBy } from '@/lib/query/group-by'
import type { GroupByRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/group-by - counts, error rate, p50/p95 or bytes of a range and filter grouped by
// one or two columns, with the SQL that ran (runGroupBy validates the body with its Zod schema)
export const POST = withAccess('/query/api/group-by', async ({ request }) => runGroupBy((await readJson(request)) as GroupByRequest))

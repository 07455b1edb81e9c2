import { withAccess } from '@/lib/access/server'
import { readJson } from '@/lib/http/route'
import { runQuery, type QueryRequest } from '@/lib/query/service'

export const dynamic = 'force-dynamic'

// POST /query/api/query - one page of rows, the total count, the SQL that ran and the time it took
// (runQuery validates the body with its Zod schema)
export const POST = withAccess('/query/api/query', async ({ request }) => runQuery((await readJson(request)) as QueryRequest))

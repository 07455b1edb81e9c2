import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { QueryRequest } from '@/lib/query/schemas'
import { runQuery } from '@/lib/query/service'

export const dynamic = 'force-dynamic'

// POST /query/api/query - one page of rows, the total count, the SQL that ran and the time it took
export const POST = withAccess('/query/api/query', { body: QueryRequest }, ({ body, identity }) => queryAs(identity, () => runQuery(body)))

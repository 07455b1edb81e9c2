import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { runContext } from '@/lib/query/context'
import { ContextRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/context - the rows just newer and older than one row, optionally with a filter
export const POST = withAccess('/query/api/context', { body: ContextRequest }, ({ body, identity }) => queryAs(identity, () => runContext(body)))

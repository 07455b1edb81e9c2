import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { TailRequest } from '@/lib/query/schemas'
import { runTail } from '@/lib/query/tail'

export const dynamic = 'force-dynamic'

// POST /query/api/tail - the rows written since a cursor (the live tail polls it)
export const POST = withAccess('/query/api/tail', { body: TailRequest }, ({ body, identity }) => queryAs(identity, () => runTail(body)))

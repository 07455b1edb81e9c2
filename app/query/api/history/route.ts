import { withAccess } from '@/lib/access/server'
import { listHistory, ownerOf } from '@/lib/saved-views/views'

export const dynamic = 'force-dynamic'

// GET /query/api/history - your last 50 runs of the rows and dashboard pages, newest first
export const GET = withAccess('/query/api/history', async ({ identity }) => ({ history: await listHistory(ownerOf(identity)) }))

import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { DashboardRequest } from '@/lib/query/schemas'
import { runDashboard } from '@/lib/query/service'

export const dynamic = 'force-dynamic'

// POST /query/api/dashboard - every dashboard panel of a dataset over a range, run concurrently
export const POST = withAccess('/query/api/dashboard', { body: DashboardRequest }, ({ body, identity }) => queryAs(identity, () => runDashboard(body)))

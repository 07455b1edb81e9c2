import { withAccess } from '@/lib/access/server'
import { readJson } from '@/lib/http/route'
import { runDashboard, type DashboardRequest } from '@/lib/query/service'

export const dynamic = 'force-dynamic'

// POST /query/api/dashboard - every dashboard panel of a dataset over a range, run concurrently
// (runDashboard validates the body with its Zod schema)
export const POST = withAccess('/query/api/dashboard', async ({ request }) => runDashboard((await readJson(request)) as DashboardRequest))

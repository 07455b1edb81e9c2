import { withAccess } from '@/lib/access/server'
import { listDatasets } from '@/lib/query/service'

export const dynamic = 'force-dynamic'

// GET /query/api/datasets - datasets with their columns, quick filters and dashboard panels
export const GET = withAccess('/query/api/datasets', () => listDatasets())

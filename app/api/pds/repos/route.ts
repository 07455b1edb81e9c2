import { route } from '@/lib/http/route'
import { listPdsReposOp } from '@/lib/pds/operations'
import { getRepos } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/repos - every repository on the PDS with active/inactive counts
export const GET = route(listPdsReposOp, () => getRepos())

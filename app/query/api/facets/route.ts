import { withAccess } from '@/lib/access/server'
import { readJson } from '@/lib/http/route'
import { runFacets } from '@/lib/query/facets'
import type { FacetsRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/facets - the top values of each categorical column for a range and filter, from
// the rollup where it can answer, else from the newest matching rows (runFacets validates the body
// with its Zod schema)
export const POST = withAccess('/query/api/facets', async ({ request }) => runFacets((await readJson(request)) as FacetsRequest))

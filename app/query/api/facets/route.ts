import { withAccess } from '@/lib/access/server'
import { queryAs } from '@/lib/saved-views/views'
import { runFacets } from '@/lib/query/facets'
import { FacetsRequest } from '@/lib/query/schemas'

export const dynamic = 'force-dynamic'

// POST /query/api/facets - the top values of each categorical column for a range and filter, from
// the rollup where it can answer, else from the newest matching rows
export const POST = withAccess('/query/api/facets', { body: FacetsRequest }, ({ body, identity }) => queryAs(identity, () => runFacets(body)))

import 'server-only'
import { headers } from 'next/headers'
import { pageAccess } from '@/lib/access/server'
import { queryBasePath } from '@/lib/access/query-host'
import { QUERY_HOME_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'
import { config } from '@/lib/config'
import { DATASETS } from '@/lib/datasets/catalog'
import { parseViewState, type SearchParams } from '@/lib/view/view-state'

/** What every query page starts from: the access decision, its link prefix and the URL state. */
export async function loadPageContext(searchParams: Promise<SearchParams>) {
  const access = await pageAccess()
  const h = await headers()
  const base = queryBasePath(h.get(QUERY_HOME_HEADER))
  const sp = await searchParams
  const { state, notices } = parseViewState(sp, { maxRangeDays: config.QUERY_MAX_RANGE_DAYS })
  // A link that carries a query (after a run, or shared): on a phone the results come first.
  const hasView = Object.keys(sp).some((k) => k !== 'dataset')
  return { access, base, state, notices, requestId: h.get(REQUEST_ID_HEADER), hasView }
}

/** The tab title of a query page: it names the dataset. (Absolute: /query is the layout's own segment, which its title template skips.) */
export function pageTitle(searchParams: SearchParams, page: 'rows' | 'dashboard'): { absolute: string } {
  const { state } = parseViewState(searchParams)
  return { absolute: `${DATASETS[state.dataset].label} · ${page === 'rows' ? 'Rows' : 'Dashboard'} · Query application` }
}

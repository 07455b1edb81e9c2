import 'server-only'
import { headers } from 'next/headers'
import { pageAccess } from '@/lib/access/server'
import { QUERY_HOME_HEADER, queryBasePath } from '@/lib/access/query-host'
import { config } from '@/lib/config'
import { REQUEST_ID_HEADER } from '@/lib/http/route'
import { DATASETS } from '@/lib/query/datasets'
import { parseViewState, type SearchParams } from '@/lib/query/view-state'

/** What every query page starts from: the access decision, its link prefix and the URL state. */
export async function loadPageContext(searchParams: Promise<SearchParams>) {
  const access = await pageAccess()
  const h = await headers()
  const base = queryBasePath(h.get(QUERY_HOME_HEADER))
  const { state, notices } = parseViewState(await searchParams, { maxRangeDays: config.QUERY_MAX_RANGE_DAYS })
  return { access, base, state, notices, requestId: h.get(REQUEST_ID_HEADER) }
}

/** The tab title of a query page: it names the dataset. (Absolute: /query is the layout's own segment, which its title template skips.) */
export function pageTitle(searchParams: SearchParams, page: 'rows' | 'dashboard'): { absolute: string } {
  const { state } = parseViewState(searchParams)
  return { absolute: `${DATASETS[state.dataset].label} · ${page === 'rows' ? 'Rows' : 'Dashboard'} · Query application` }
}

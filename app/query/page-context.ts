import 'server-only'
import { headers } from 'next/headers'
import { crossSiteNavigation } from '@/lib/access/policy'
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
  // Opened from another site with a query in the link: shown, not run (nor recorded in the history), until confirmed.
  const site = hasView ? crossSiteNavigation(h) : null
  const confirmRun = site ? { site, search: searchOf(sp) } : undefined
  return { access, base, state, notices, requestId: h.get(REQUEST_ID_HEADER), hasView, confirmRun }
}

/** The page's query string as it came, for the link that runs it from our own origin. */
function searchOf(sp: SearchParams): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(sp)) for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(key, v)
  return params.toString()
}

/** The tab title of a query page: it names the dataset. (Absolute: /query is the layout's own segment, which its title template skips.) */
export function pageTitle(searchParams: SearchParams, page: 'rows' | 'dashboard'): { absolute: string } {
  const { state } = parseViewState(searchParams)
  return { absolute: `${DATASETS[state.dataset].label} · ${page === 'rows' ? 'Rows' : 'Dashboard'} · Query application` }
}

import 'server-only'
import { headers } from 'next/headers'
import { pageAccess } from '@/lib/access/server'
import { QUERY_HOME_HEADER, queryBasePath } from '@/lib/access/query-host'
import { parseViewState, type SearchParams } from '@/lib/query/view-state'

/** What every query page starts from: the access decision, its link prefix and the URL state. */
export async function loadPageContext(searchParams: Promise<SearchParams>) {
  const access = await pageAccess()
  const base = queryBasePath((await headers()).get(QUERY_HOME_HEADER))
  const { state, unknownDataset } = parseViewState(await searchParams)
  return { access, base, state, unknownDataset }
}

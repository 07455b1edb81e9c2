import { stringify } from 'csv-stringify/sync'
import { withAccess } from '@/lib/access/server'
import { runQuery } from '@/lib/query/service'
import { parseViewState, rangeRequest, type SearchParams } from '@/lib/query/view-state'

export const dynamic = 'force-dynamic'

// GET /query/export?dataset=…&range=…&filter=…&limit=…&offset=… - the rows of that page state as CSV
export const GET = withAccess('/query/export', async ({ request }) => {
  const { state } = parseViewState(Object.fromEntries(request.nextUrl.searchParams) as SearchParams)
  const result = await runQuery({ ...rangeRequest(state), limit: state.limit, offset: state.offset, cursor: state.cursor || undefined })
  // escape_formulas: cells such as user agents and referrers are client-supplied, and a leading
  // = + - @ would run as a formula in a spreadsheet.
  const csv = stringify(result.rows, { header: true, columns: result.columns, escape_formulas: true, cast: { boolean: (b) => String(b) } })
  const name = `${result.dataset}-${result.range.from}-${result.range.to}`.replace(/[^0-9A-Za-z_-]+/g, '')
  return new Response(csv, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${name}.csv"` } })
})

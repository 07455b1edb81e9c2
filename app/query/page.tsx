import { QueryPageShell } from '@/components/query/query-page-shell'
import { ResultsTable } from '@/components/query/results-table'
import { ErrorState } from '@/components/query/states'
import { AppError } from '@/lib/http/errors'
import { runQuery, type QueryResult } from '@/lib/query/service'
import { rangeRequest, viewHref, type SearchParams, type ViewState } from '@/lib/query/view-state'
import { loadPageContext } from './page-context'

export const dynamic = 'force-dynamic'

// GET /query - rows of a dataset over a range, filtered and paged; the URL holds the state
export default async function QueryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await loadPageContext(searchParams)
  return (
    <QueryPageShell page="query" {...ctx}>
      <Results base={ctx.base} state={ctx.state} />
    </QueryPageShell>
  )
}

async function Results({ base, state }: { base: string; state: ViewState }) {
  const request = { ...rangeRequest(state), limit: state.limit, offset: state.offset, cursor: state.cursor || undefined }
  let result: QueryResult
  try {
    result = await runQuery(request)
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return <ErrorState title="The query was not run" message={error.message} />
  }
  // The export repeats this exact page: a relative range is pinned to the bounds just used.
  const exportHref = viewHref(`${base}/export`, state, { range: 'custom', from: request.dateFrom, to: request.dateTo, cursor: state.cursor })
  return <ResultsTable result={result} path={base || '/'} state={state} exportHref={exportHref} />
}

import type { Metadata } from 'next'
import { Histogram } from '@/components/query/histogram'
import { QueryPageShell } from '@/components/query/query-page-shell'
import { ResultsTable } from '@/components/query/results-table'
import { DemoNote, ErrorState } from '@/components/query/states'
import type { Identity } from '@/lib/access/policy'
import { config } from '@/lib/config'
import { AppError } from '@/lib/http/errors'
import { hasDemoRows } from '@/lib/query/demo'
import { ownerOf, recordRun } from '@/lib/query/saved'
import { runHistogram, runQuery, type HistogramResult, type QueryResult } from '@/lib/query/service'
import { DEFAULT_LIMIT, rangeRequest, sortRequest, viewHref, viewQuery, type SearchParams, type ViewState } from '@/lib/query/view-state'
import { loadPageContext, pageTitle } from './page-context'

export const dynamic = 'force-dynamic'

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: pageTitle(await searchParams, 'rows') }
}

// GET /query - rows of a dataset over a range, filtered and paged; the URL holds the state
export default async function QueryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await loadPageContext(searchParams)
  return (
    <QueryPageShell page="query" {...ctx}>
      {ctx.access.ok ? <Results base={ctx.base} state={ctx.state} identity={ctx.access.identity} /> : null}
    </QueryPageShell>
  )
}

async function Results({ base, state, identity }: { base: string; state: ViewState; identity: Identity }) {
  const request = { ...rangeRequest(state), limit: state.limit, offset: state.offset, cursor: state.cursor || undefined, ...sortRequest(state) }
  const run = { page: 'rows' as const, view: viewQuery(state) }
  let result: QueryResult
  let histogram: HistogramResult
  try {
    // The rows and the histogram above them: same range and filter, run concurrently.
    ;[result, histogram] = await Promise.all([runQuery(request), runHistogram(rangeRequest(state))])
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    await recordRun(ownerOf(identity), { ...run, error: error.message })
    return <ErrorState title="The query was not run" message={error.message} />
  }
  await recordRun(ownerOf(identity), { ...run, rowCount: result.count, elapsedMs: result.elapsedMs })
  // The export covers this exact view: a relative range is pinned to the bounds just used.
  const exportHref = viewHref(`${base}/export`, state, { range: 'custom', from: request.dateFrom, to: request.dateTo, offset: 0, limit: DEFAULT_LIMIT })
  const demo = await hasDemoRows(state.dataset).catch(() => false)
  return (
    <>
      {demo ? <DemoNote dataset={state.dataset} ingestPath={`${base}/ingest/${state.dataset}`} /> : null}
      <Histogram histogram={histogram} path={base || '/'} state={state} />
      <ResultsTable result={result} path={base || '/'} state={state} exportHref={exportHref} exportMaxRows={config.QUERY_EXPORT_MAX_ROWS} />
    </>
  )
}

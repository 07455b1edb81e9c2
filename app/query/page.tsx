import { Suspense } from 'react'
import { DatasetPicker } from '@/components/query/dataset-picker'
import { QueryForm } from '@/components/query/query-form'
import { QueryHeader } from '@/components/query/query-header'
import { QuickFilters } from '@/components/query/quick-filters'
import { ResultsTable } from '@/components/query/results-table'
import { ErrorState, LoadingState } from '@/components/query/states'
import { AppError } from '@/lib/http/errors'
import { getDataset } from '@/lib/query/datasets'
import { runQuery, type QueryResult } from '@/lib/query/service'
import { resolveViewRange, viewHref, type SearchParams, type ViewState } from '@/lib/query/view-state'
import { loadPageContext } from './page-context'

export const dynamic = 'force-dynamic'

// GET /query - rows of a dataset over a range, filtered and paged; the URL holds the state
export default async function QueryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { access, base, state, unknownDataset } = await loadPageContext(searchParams)
  const path = base || '/'
  return (
    <>
      <QueryHeader base={base} current="query" access={access} state={state} />
      {!access.ok ? (
        <ErrorState title="Access refused" message={access.reason} />
      ) : (
        <main>
          <DatasetPicker path={path} state={state} />
          <QueryForm action={path} state={state} withLimit />
          <QuickFilters path={path} state={state} dataset={getDataset(state.dataset)} />
          {unknownDataset ? (
            <ErrorState title="Unknown dataset" message={`There is no dataset “${unknownDataset}”; pick one above.`} />
          ) : (
            <Suspense key={viewHref(path, state)} fallback={<LoadingState>Running the query…</LoadingState>}>
              <Results path={path} base={base} state={state} />
            </Suspense>
          )}
        </main>
      )}
    </>
  )
}

async function Results({ path, base, state }: { path: string; base: string; state: ViewState }) {
  const range = resolveViewRange(state)
  let result: QueryResult
  try {
    result = await runQuery({ dataset: state.dataset, ...range, filter: state.filter || undefined, limit: state.limit, offset: state.offset })
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return <ErrorState title="The query was not run" message={error.message} />
  }
  // The export repeats this exact page: a relative range is pinned to the bounds just used.
  const exportHref = viewHref(`${base}/export`, state, { range: 'custom', from: range.dateFrom, to: range.dateTo })
  return <ResultsTable result={result} path={path} state={state} exportHref={exportHref} />
}

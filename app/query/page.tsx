import { after } from 'next/server'
import type { Metadata } from 'next'
import { CompareControls } from '@/components/query/compare-controls'
import { ContextRows } from '@/components/query/context-rows'
import { WithFacets } from '@/components/query/facets'
import { Histogram } from '@/components/query/histogram'
import { LiveTail } from '@/components/query/live-tail-client'
import { PatternsSection } from '@/components/query/patterns'
import { WhatChanged } from '@/components/query/what-changed'
import { QueryPageShell } from '@/components/query/query-page-shell'
import { ResultsTable } from '@/components/query/results-table'
import { DemoNote, ErrorState } from '@/components/query/states'
import type { Identity } from '@/lib/access/policy'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { runChartData, type ChartData } from '@/lib/query/compare'
import { runContext } from '@/lib/query/context'
import type { ContextResult } from '@/lib/query/schemas'
import { ownerOf, queryAs, recordRun } from '@/lib/saved-views/views'
import { DATASETS } from '@/lib/datasets/catalog'
import { demoRowsOf, runQuery, type QueryResult } from '@/lib/query/service'
import { DEFAULT_LIMIT, rangeRequest, shownColumns, sortRequest, viewHref, viewQuery, type SearchParams, type ViewState } from '@/lib/view/view-state'
import { loadPageContext, pageTitle } from './page-context'

export const dynamic = 'force-dynamic'

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: pageTitle(await searchParams, 'rows') }
}

// GET /query - rows of a dataset over a range, filtered and paged; the URL holds the state
export default async function QueryPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await loadPageContext(searchParams)
  // `facets=exact`: the facets the rollup cannot answer are counted over every matching row, not the newest ones.
  const exactFacets = (await searchParams).facets === 'exact'
  // `patterns=<column>`: the patterns of that text column under the rows (only when asked for).
  const patterns = (await searchParams).patterns
  const patternColumn = typeof patterns === 'string' && patterns ? patterns : null
  return (
    <QueryPageShell page="query" {...ctx}>
      {!ctx.access.ok ? null : ctx.state.live ? (
        <Live base={ctx.base} state={ctx.state} />
      ) : ctx.state.around ? (
        <Around base={ctx.base} state={ctx.state} identity={ctx.access.identity} />
      ) : (
        <Results base={ctx.base} state={ctx.state} identity={ctx.access.identity} exactFacets={exactFacets} patternColumn={patternColumn} />
      )}
    </QueryPageShell>
  )
}

// Live tail mode (live=1): the rows as they are written, polled by the browser; the range does not apply.
function Live({ base, state }: { base: string; state: ViewState }) {
  const fields = DATASETS[state.dataset].columns.map(({ name, type, unit }) => ({ name, type, unit }))
  const shown = new Set(shownColumns(state))
  const path = base || '/'
  return (
    <LiveTail
      key={viewQuery(state)}
      api={`${base}/api/tail`}
      path={path}
      state={state}
      columns={fields.filter((c) => shown.has(c.name))}
      fields={fields}
      rowsHref={viewHref(path, state, { live: false })}
    />
  )
}

// Rows in context (around=<row key>): the rows just newer and older than one row; the range does not apply.
async function Around({ base, state, identity }: { base: string; state: ViewState; identity: Identity }) {
  let result: ContextResult
  try {
    result = await queryAs(identity, () => runContext({ dataset: state.dataset, at: state.around!, filter: state.filter || undefined }))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return <ErrorState title="The rows around this row were not read" message={error.message} />
  }
  return <ContextRows result={result} path={base || '/'} state={state} />
}

async function Results({
  base,
  state,
  identity,
  exactFacets,
  patternColumn,
}: {
  base: string
  state: ViewState
  identity: Identity
  exactFacets: boolean
  patternColumn: string | null
}) {
  const request = { ...rangeRequest(state), limit: state.limit, offset: state.offset, cursor: state.cursor || undefined, ...sortRequest(state) }
  const run = { page: 'rows' as const, view: viewQuery(state) }
  let result: QueryResult
  let charts: ChartData
  try {
    // The rows and the histogram above them: same range and filter, run concurrently.
    // (With compare= and split= in the URL, the histogram is also compared and split.)
    ;[result, charts] = await queryAs(identity, () => Promise.all([runQuery(request), runChartData(rangeRequest(state), state)]))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    const failed = { ...run, error: error.message }
    after(() => recordRun(ownerOf(identity), failed))
    return <ErrorState title="The query was not run" message={error.message} />
  }
  // The history row is written after the page is sent: rendering reads, it does not write.
  const done = { ...run, rowCount: result.count, elapsedMs: result.elapsedMs }
  after(() => recordRun(ownerOf(identity), done))
  // The export covers this exact view: a relative range is pinned to the bounds just used.
  const exportHref = viewHref(`${base}/export`, state, { range: 'custom', from: request.dateFrom, to: request.dateTo, offset: 0, limit: DEFAULT_LIMIT })
  const demo = await demoRowsOf(state.dataset).catch(() => null)
  return (
    <>
      {demo ? (
        <DemoNote
          dataset={state.dataset}
          embedded={demo.embedded}
          realRows={DATASETS[state.dataset].writtenBy}
          ingestPath={`${base}/ingest/${state.dataset}`}
        />
      ) : null}
      <CompareControls action={base || '/'} state={state} />
      <WithFacets base={base} state={state} identity={identity} exact={exactFacets}>
        <Histogram {...charts} path={base || '/'} state={state} />
        {charts.compare ? <WhatChanged compare={charts.compare} path={base || '/'} state={state} /> : null}
        <ResultsTable result={result} path={base || '/'} state={state} exportHref={exportHref} exportMaxRows={config.QUERY_EXPORT_MAX_ROWS} />
        <PatternsSection base={base} state={state} identity={identity} column={patternColumn} />
      </WithFacets>
    </>
  )
}

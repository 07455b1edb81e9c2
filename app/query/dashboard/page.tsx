import { Suspense } from 'react'
import { DashboardPanel } from '@/components/query/dashboard-panel'
import { DatasetPicker } from '@/components/query/dataset-picker'
import { QueryForm } from '@/components/query/query-form'
import { QueryHeader } from '@/components/query/query-header'
import { QuickFilters } from '@/components/query/quick-filters'
import { ErrorState, LoadingState } from '@/components/query/states'
import styles from '@/components/query/query.module.css'
import { AppError } from '@/lib/http/errors'
import { getDataset } from '@/lib/query/datasets'
import { runDashboard, type DashboardResult } from '@/lib/query/service'
import { resolveViewRange, viewHref, type SearchParams, type ViewState } from '@/lib/query/view-state'
import { loadPageContext } from '../page-context'

export const dynamic = 'force-dynamic'

// GET /query/dashboard - the dataset's panels (counts over time, breakdowns, top 10s) for a range
export default async function DashboardPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { access, base, state, unknownDataset } = await loadPageContext(searchParams)
  const path = `${base}/dashboard`
  return (
    <>
      <QueryHeader base={base} current="dashboard" access={access} state={state} />
      {!access.ok ? (
        <ErrorState title="Access refused" message={access.reason} />
      ) : (
        <main>
          <DatasetPicker path={path} state={state} />
          <QueryForm action={path} state={state} withLimit={false} />
          <QuickFilters path={path} state={state} dataset={getDataset(state.dataset)} />
          {unknownDataset ? (
            <ErrorState title="Unknown dataset" message={`There is no dataset “${unknownDataset}”; pick one above.`} />
          ) : (
            <Suspense key={viewHref(path, state)} fallback={<LoadingState>Running the dashboard…</LoadingState>}>
              <Panels state={state} />
            </Suspense>
          )}
        </main>
      )}
    </>
  )
}

async function Panels({ state }: { state: ViewState }) {
  let result: DashboardResult
  try {
    result = await runDashboard({ dataset: state.dataset, ...resolveViewRange(state), filter: state.filter || undefined })
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return <ErrorState title="The dashboard was not run" message={error.message} />
  }
  return (
    <>
      <p className={styles.hint}>
        {result.range.from} → {result.range.to} · {result.panels.length} panels in {result.elapsedMs} ms
        {result.filter ? ` · filter: ${result.filter}` : ''}
      </p>
      <div className={styles.panels}>
        {result.panels.map((panel) => (
          <DashboardPanel key={panel.id} panel={panel} />
        ))}
      </div>
    </>
  )
}

import { after } from 'next/server'
import type { Metadata } from 'next'
import { AutoRefresh } from '@/components/query/auto-refresh-client'
import { CompareControls } from '@/components/query/compare-controls'
import { dashboardExtras } from '@/components/query/dashboard-extras'
import { DashboardPanel } from '@/components/query/dashboard-panel'
import styles from '@/components/query/query.module.css'
import { QueryPageShell } from '@/components/query/query-page-shell'
import { ErrorState } from '@/components/query/states'
import type { Identity } from '@/lib/access/policy'
import { AppError } from '@/lib/errors'
import { ownerOf, queryAs, recordRun } from '@/lib/saved-views/views'
import { runDashboardCharts } from '@/lib/query/compare'
import { runDashboard, type DashboardResult } from '@/lib/query/service'
import { renderTime } from '@/lib/view/exact-window'
import { formatTime } from '@/lib/view/time'
import { rangeRequest, viewQuery, type SearchParams, type ViewState } from '@/lib/view/view-state'
import { loadPageContext, pageTitle } from '../page-context'

export const dynamic = 'force-dynamic'

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  return { title: pageTitle(await searchParams, 'dashboard') }
}

// GET /query/dashboard - the dataset's panels (counts over time, breakdowns, top 10s) for a range
export default async function DashboardPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await loadPageContext(searchParams)
  return (
    <QueryPageShell page="dashboard" {...ctx}>
      {ctx.access.ok ? <Panels path={`${ctx.base}/dashboard`} state={ctx.state} identity={ctx.access.identity} /> : null}
    </QueryPageShell>
  )
}

async function Panels({ path, state, identity }: { path: string; state: ViewState; identity: Identity }) {
  const run = { page: 'dashboard' as const, view: viewQuery(state) }
  let result: DashboardResult
  let charts: Awaited<ReturnType<typeof runDashboardCharts>>
  try {
    // (With compare= and split= in the URL, the time charts are also compared and split.)
    ;[result, charts] = await queryAs(identity, () => Promise.all([runDashboard(rangeRequest(state)), runDashboardCharts(rangeRequest(state), state)]))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    const failed = { ...run, error: error.message }
    after(() => recordRun(ownerOf(identity), failed))
    return <ErrorState title="The dashboard was not run" message={error.message} />
  }
  const rows = result.panels.find((p) => p.id === 'count_over_time')
  const rowCount = rows?.kind === 'timeseries' ? rows.series[0].values.reduce((a, b) => a + b, 0) : undefined
  // The history row is written after the page is sent: rendering reads, it does not write.
  const done = { ...run, rowCount, elapsedMs: result.elapsedMs }
  // An auto-refreshing dashboard would fill the history with its own ticks: its runs are not recorded.
  if (!state.refresh) after(() => recordRun(ownerOf(identity), done))
  return (
    <>
      <p className={styles.hint} data-testid="range">
        {formatTime(result.range.from, state.tz)} → {formatTime(result.range.to, state.tz)} · {result.panels.length} panels in {result.elapsedMs} ms
        {result.filter ? ` · filter: ${result.filter}` : ''} · click an entry to filter by it, Alt-click to exclude it
      </p>
      <AutoRefresh path={path} state={state} renderedAt={renderTime()} />
      <CompareControls action={path} state={state} />
      <div className={styles.panels}>
        {result.panels.map((panel) => (
          <DashboardPanel key={panel.id} panel={panel} path={path} state={state} range={result.range} extras={dashboardExtras(panel, charts)} />
        ))}
      </div>
    </>
  )
}

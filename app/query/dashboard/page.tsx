import type { Metadata } from 'next'
import { DashboardPanel } from '@/components/query/dashboard-panel'
import styles from '@/components/query/query.module.css'
import { QueryPageShell } from '@/components/query/query-page-shell'
import { ErrorState } from '@/components/query/states'
import type { Identity } from '@/lib/access/policy'
import { AppError } from '@/lib/http/errors'
import { ownerOf, recordRun } from '@/lib/query/saved'
import { runDashboard, type DashboardResult } from '@/lib/query/service'
import { formatTime } from '@/lib/query/time'
import { rangeRequest, viewQuery, type SearchParams, type ViewState } from '@/lib/query/view-state'
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
  try {
    result = await runDashboard(rangeRequest(state))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    await recordRun(ownerOf(identity), { ...run, error: error.message })
    return <ErrorState title="The dashboard was not run" message={error.message} />
  }
  const rows = result.panels.find((p) => p.id === 'count_over_time')
  const rowCount = rows?.kind === 'timeseries' ? rows.series[0].values.reduce((a, b) => a + b, 0) : undefined
  await recordRun(ownerOf(identity), { ...run, rowCount, elapsedMs: result.elapsedMs })
  return (
    <>
      <p className={styles.hint} data-testid="range">
        {formatTime(result.range.from, state.tz)} → {formatTime(result.range.to, state.tz)} · {result.panels.length} panels in {result.elapsedMs} ms
        {result.filter ? ` · filter: ${result.filter}` : ''} · click an entry to filter by it, Alt-click to exclude it
      </p>
      <div className={styles.panels}>
        {result.panels.map((panel) => (
          <DashboardPanel key={panel.id} panel={panel} path={path} state={state} />
        ))}
      </div>
    </>
  )
}

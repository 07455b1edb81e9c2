import { DashboardPanel } from '@/components/query/dashboard-panel'
import styles from '@/components/query/query.module.css'
import { QueryPageShell } from '@/components/query/query-page-shell'
import { ErrorState } from '@/components/query/states'
import { AppError } from '@/lib/http/errors'
import { runDashboard, type DashboardResult } from '@/lib/query/service'
import { rangeRequest, type SearchParams, type ViewState } from '@/lib/query/view-state'
import { loadPageContext } from '../page-context'

export const dynamic = 'force-dynamic'

// GET /query/dashboard - the dataset's panels (counts over time, breakdowns, top 10s) for a range
export default async function DashboardPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await loadPageContext(searchParams)
  return (
    <QueryPageShell page="dashboard" {...ctx}>
      <Panels state={ctx.state} />
    </QueryPageShell>
  )
}

async function Panels({ state }: { state: ViewState }) {
  let result: DashboardResult
  try {
    result = await runDashboard(rangeRequest(state))
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

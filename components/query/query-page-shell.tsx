import { Suspense, type ReactNode } from 'react'
import type { AccessResult } from '@/lib/access/policy'
import { getDataset } from '@/lib/query/datasets'
import { viewHref, viewQuery, type ViewState } from '@/lib/query/view-state'
import { DatasetPicker } from './dataset-picker'
import { QueryForm } from './query-form'
import { QueryHeader } from './query-header'
import { QuickFilters } from './quick-filters'
import { Refused } from './refused'
import { SaveView } from './save-view-client'
import { LoadingState, Notices } from './states'
import styles from './query.module.css'

interface ShellProps {
  page: 'query' | 'dashboard'
  base: string
  access: AccessResult
  state: ViewState
  /** Parameters of the URL that were replaced by defaults, one sentence each. */
  notices: string[]
  requestId: string | null
  /** What runs the query; shown behind a loading state each time the URL state changes. */
  children: ReactNode
}

// What the rows and dashboard pages share: header, dataset picker, form, quick filters and the
// save form, the notices about the URL, and the refused and loading states around the part that
// queries.
export function QueryPageShell({ page, base, access, state, notices, requestId, children }: ShellProps) {
  const path = page === 'query' ? base || '/' : `${base}/dashboard`
  if (!access.ok) {
    return (
      <>
        <QueryHeader base={base} current={page} access={access} state={state} skipTo={{ id: 'main', label: 'Skip to content' }} />
        <Refused access={access} requestId={requestId} />
      </>
    )
  }
  return (
    <>
      <QueryHeader base={base} current={page} access={access} state={state} skipTo={{ id: 'results', label: page === 'query' ? 'Skip to results' : 'Skip to panels' }} />
      <main id="main">
        <Notices notices={notices} />
        <DatasetPicker path={path} state={state} />
        <QueryForm action={path} state={state} withLimit={page === 'query'} />
        <QuickFilters path={path} state={state} dataset={getDataset(state.dataset)} />
        <SaveView api={`${base}/api/saved`} page={page === 'query' ? 'rows' : 'dashboard'} view={viewQuery({ ...state, offset: 0 })} savedHref={viewHref(`${base}/saved`, state, { offset: 0 })} />
        <div id="results" tabIndex={-1} className={styles.results}>
          <Suspense key={viewHref(path, state)} fallback={<LoadingState>{page === 'query' ? 'Running the query…' : 'Running the dashboard…'}</LoadingState>}>
            {children}
          </Suspense>
        </div>
      </main>
    </>
  )
}

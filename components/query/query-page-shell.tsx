import { Suspense, type ReactNode } from 'react'
import type { AccessResult } from '@/lib/access/policy'
import { getDataset } from '@/lib/query/datasets'
import { viewHref, type ViewState } from '@/lib/query/view-state'
import { DatasetPicker } from './dataset-picker'
import { QueryForm } from './query-form'
import { QueryHeader } from './query-header'
import { QuickFilters } from './quick-filters'
import { ErrorState, LoadingState } from './states'

interface ShellProps {
  page: 'query' | 'dashboard'
  base: string
  access: AccessResult
  state: ViewState
  unknownDataset: string | null
  /** What runs the query; shown behind a loading state each time the URL state changes. */
  children: ReactNode
}

// What the rows and dashboard pages share: header, dataset picker, form and quick filters, and the
// refused, unknown-dataset and loading states around the part that queries.
export function QueryPageShell({ page, base, access, state, unknownDataset, children }: ShellProps) {
  const path = page === 'query' ? base || '/' : `${base}/dashboard`
  return (
    <>
      <QueryHeader base={base} current={page} access={access} state={state} />
      {!access.ok ? (
        <ErrorState title="Access refused" message={access.reason} />
      ) : (
        <main>
          <DatasetPicker path={path} state={state} />
          <QueryForm action={path} state={state} withLimit={page === 'query'} />
          <QuickFilters path={path} state={state} dataset={getDataset(state.dataset)} />
          {unknownDataset ? (
            <ErrorState title="Unknown dataset" message={`There is no dataset “${unknownDataset}”; pick one above.`} />
          ) : (
            <Suspense key={viewHref(path, state)} fallback={<LoadingState>{page === 'query' ? 'Running the query…' : 'Running the dashboard…'}</LoadingState>}>
              {children}
            </Suspense>
          )}
        </main>
      )}
    </>
  )
}

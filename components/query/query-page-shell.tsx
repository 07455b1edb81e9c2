import { Suspense, type ReactNode } from 'react'
import type { AccessResult } from '@/lib/access/policy'
import { getDataset } from '@/lib/datasets/catalog'
import { pinnedWindow } from '@/lib/view/exact-window'
import { UTC } from '@/lib/view/time'
import { RANGE_PRESETS, viewHref, viewQuery, zoomOut, type ViewState } from '@/lib/view/view-state'
import { DatasetPicker } from './dataset-picker'
import { QueryForm } from './query-form'
import { QueryHeader } from './query-header'
import { QuickFilters } from './quick-filters'
import { Refused } from './refused'
import { ReplicaLagNote } from './replica-lag-note'
import { SaveView } from './save-view-client'
import { ExactWindowLink } from './exact-window-client'
import { QueryControls } from './query-controls-client'
import { LoadingState, Notices } from './states'
import styles from './query.module.css'

interface ShellProps {
  page: 'query' | 'dashboard' | 'group'
  base: string
  access: AccessResult
  state: ViewState
  /** Parameters of the URL that were replaced by defaults, one sentence each. */
  notices: string[]
  requestId: string | null
  /** Whether the URL carries a query (after a run, or a shared link): a phone then shows results first. */
  hasView?: boolean
  /** What runs the query; shown behind a loading state each time the URL state changes. */
  children: ReactNode
  /** Page parameters beyond the view state that the form keeps (the group-by page's `by`…). */
  formHidden?: Record<string, string>
  /** Opened from another site: the query is shown and waits for the operator (`site`: Sec-Fetch-Site; `search`: the link's query string). */
  confirmRun?: { site: string; search: string }
}

// What the rows and dashboard pages share: header, dataset picker, form, quick filters and the
// save form, the notices about the URL and the replica's lag, and the refused and loading states
// around the part that queries.
export function QueryPageShell({ page, base, access, state, notices, requestId, hasView = true, children, formHidden, confirmRun }: ShellProps) {
  const path = page === 'query' ? base || '/' : `${base}/${page}`
  // The range pinned to what it means now, for links and saved views that must not move on.
  const pinned = pinnedWindow(state)
  const windowLabel = `${pinned.from} → ${pinned.to}${state.tz === UTC ? ' UTC' : ` ${state.tz}`}`
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
      <QueryHeader
        base={base}
        current={page}
        access={access}
        state={state}
        skipTo={{ id: 'results', label: page === 'dashboard' ? 'Skip to panels' : 'Skip to results' }}
      />
      <main id="main">
        <Notices notices={notices} />
        {/* Streamed in: the page never waits for the replica's lag. */}
        <Suspense fallback={null}>
          <ReplicaLagNote />
        </Suspense>
        <QueryControls runKey={viewQuery(state)} summary={controlsSummary(state)} collapsed={hasView}>
          <DatasetPicker path={path} state={state} />
          <QueryForm action={path} valuesApi={`${base}/api/facets`} state={state} withLimit={page === 'query'} hidden={formHidden} />
          <QuickFilters path={path} state={state} dataset={getDataset(state.dataset)} />
          {page === 'group' ? null : (
            <SaveView
              api={`${base}/api/saved`}
              page={page === 'query' ? 'rows' : 'dashboard'}
              view={viewQuery({ ...state, offset: 0 })}
              savedHref={viewHref(`${base}/saved`, state, { offset: 0 })}
              pinnedView={state.range === 'custom' ? undefined : { view: viewQuery(pinned), label: windowLabel }}
            />
          )}
        </QueryControls>
        {state.live ? null : (
          <ExactWindowLink
            href={viewHref(path, pinned)}
            label={windowLabel}
            zoomOutHref={`${viewHref(path, state, { ...zoomOut(state), offset: 0 })}${zoomKept(formHidden)}`}
          />
        )}
        <div id="results" tabIndex={-1} className={styles.results}>
          {confirmRun ? (
            <ConfirmRun href={`${path}?${confirmRun.search}`} site={confirmRun.site} state={state} page={page} />
          ) : (
            <Suspense
              key={viewHref(path, state)}
              fallback={<LoadingState>{page === 'dashboard' ? 'Running the dashboard…' : 'Running the query…'}</LoadingState>}
            >
              {children}
            </Suspense>
          )}
        </div>
      </main>
    </>
  )
}

/**
 * A query opened from another site: what it would run, and a same-origin link that runs it. The
 * other site chose the filter; running it as the operator (and writing their history) waits for them.
 */
function ConfirmRun({ href, site, state, page }: { href: string; site: string; state: ViewState; page: ShellProps['page'] }) {
  const range = state.range === 'custom' ? `${state.from} → ${state.to}` : RANGE_PRESETS[state.range]
  return (
    <div className={styles.notice} role="status" data-testid="confirm-run">
      <p>
        <strong>This {page === 'dashboard' ? 'dashboard' : page === 'group' ? 'grouping' : 'query'} was opened from another site</strong> (Sec-Fetch-Site:{' '}
        {site}), so it has not been run, and nothing was added to your history. Check what it would run:
      </p>
      <ul>
        <li>
          Dataset: <code>{getDataset(state.dataset).label}</code>, range: {range}
        </li>
        <li>Filter: {state.filter ? <code data-testid="confirm-filter">{state.filter}</code> : 'none'}</li>
      </ul>
      <p>
        <a className={styles.primary} href={href} data-testid="confirm-run-link">
          Run this query
        </a>
      </p>
    </div>
  )
}

/** What the collapsed controls say is being queried: range and filter. */
function controlsSummary(state: ViewState): string {
  const range = state.range === 'custom' ? `${state.from} → ${state.to}` : RANGE_PRESETS[state.range]
  return `(${range}${state.filter ? ` · ${state.filter.length > 60 ? `${state.filter.slice(0, 59)}…` : state.filter}` : ''})`
}

/** The page's own parameters (the group-by page's `by`…) a zoomed-out link keeps. */
function zoomKept(hidden: Record<string, string> | undefined): string {
  return hidden && Object.keys(hidden).length ? `&${new URLSearchParams(hidden)}` : ''
}

import type { Metadata } from 'next'
import Link from 'next/link'
import { QueryHeader } from '@/components/query/query-header'
import styles from '@/components/query/query.module.css'
import { Refused } from '@/components/query/refused'
import { AlertChecksChart } from '@/components/query/alert-checks-chart'
import { ConditionEditor } from '@/components/query/condition-editor-client'
import { SavedActions } from '@/components/query/saved-actions-client'
import { EmptyState } from '@/components/query/states'
import { DATASETS } from '@/lib/datasets/catalog'
import { formatCount } from '@/lib/view/format'
import { HISTORY_SIZE, listEvaluations, listHistory, listSaved, ownerOf, type Evaluation, type QueryPage } from '@/lib/saved-views/views'
import { formatValue, type Condition } from '@/lib/saved-views/condition'
import { formatTime } from '@/lib/view/time'
import { parseViewState, RANGE_PRESETS, type SearchParams, type ViewState } from '@/lib/view/view-state'
import { loadPageContext } from '../page-context'

export const dynamic = 'force-dynamic'
export const metadata: Metadata = { title: 'Saved views and history' }

// GET /query/saved - your saved views (open, share, rename, delete) and your last 50 runs
export default async function SavedPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { access, base, state, requestId } = await loadPageContext(searchParams)
  const header = (skipTo: { id: string; label: string }) => <QueryHeader base={base} current="saved" access={access} state={state} skipTo={skipTo} />
  if (!access.ok)
    return (
      <>
        {header({ id: 'main', label: 'Skip to content' })}
        <Refused access={access} requestId={requestId} />
      </>
    )
  const owner = ownerOf(access.identity)
  const [saved, history] = await Promise.all([listSaved(owner), listHistory(owner)])
  const alerting = saved.filter((s) => s.condition)
  const evaluations = await listEvaluations(
    owner,
    alerting.map((s) => s.id),
    CHECKS_SHOWN,
  )
  const open = (page: QueryPage, view: string) => `${page === 'rows' ? base || '/' : `${base}/dashboard`}?${view}`
  // The alerts dataset knows a view by its id; only here, on its owner's list, does the id meet the name.
  const alertsOf = (id: string) =>
    `${base || '/'}?${new URLSearchParams({ dataset: 'alerts', range: '7d', filter: `view_id = '${id.replaceAll("'", "''")}'` })}`
  return (
    <>
      {header({ id: 'main', label: 'Skip to content' })}
      <main id="main">
        <h2>Saved views</h2>
        <p className={styles.hint}>
          Only you see and change your saved views. “Copy link” copies the view itself (dataset, range, filter, columns): whoever opens it runs the same query
          with their own access, and can save their own copy; your list stays yours.
        </p>
        <p className={styles.hint}>
          A view can carry an alert: its row count or error rate over the last minutes, above or below a threshold. The alerts job checks every alert every few
          minutes and notifies the team’s webhook when one fires or resolves; each notification is kept in the{' '}
          <Link href={`${base || '/'}?dataset=alerts&range=7d`}>alerts dataset</Link>, which every query user can read: it names your view by its id only, never
          its name or filter (“Its alerts” below opens yours).
        </p>
        {saved.length === 0 ? (
          <EmptyState>No saved views yet: use “Save view” on the rows or dashboard page.</EmptyState>
        ) : (
          <table className={styles.list} aria-label="Saved views">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">View</th>
                <th scope="col">Saved</th>
                <th scope="col">Alert</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {saved.map((s) => (
                <tr key={s.id} data-testid="saved-view">
                  <td>
                    <Link href={open(s.page, s.view)}>{s.name}</Link>
                  </td>
                  <td>{describeView(s.page, s.view, state.tz)}</td>
                  <td>{formatTime(s.updatedAt, state.tz)}</td>
                  <td>
                    <ConditionEditor
                      api={`${base}/api/saved/${s.id}/condition`}
                      testApi={`${base}/api/saved/${s.id}/test-notification`}
                      name={s.name}
                      condition={s.condition}
                      errorRate={Boolean(DATASETS[viewDataset(s.view)].errorFilter)}
                      textColumns={DATASETS[viewDataset(s.view)].columns.filter((c) => c.type === 'text').map((c) => c.name)}
                    />
                    {s.condition ? (
                      <>
                        {' '}
                        <Link href={alertsOf(s.id)} data-testid="view-alerts" aria-label={`Alerts of ${s.name}`}>
                          Its alerts
                        </Link>
                      </>
                    ) : null}
                  </td>
                  <td>
                    <SavedActions api={`${base}/api/saved/${s.id}`} name={s.name} shareHref={open(s.page, s.view)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {alerting.length ? (
          <>
            <h2>Recent alert checks</h2>
            <p className={styles.hint}>
              Each run of the alerts job checks every alert once: the window it measured, the value, and whether a notification went out (the last{' '}
              {CHECKS_SHOWN}, newest first). Only you see these.
            </p>
            {alerting.map((s) => (
              <section key={s.id} className={styles.checks} aria-labelledby={`checks-${s.id}`}>
                <h3 id={`checks-${s.id}`}>{s.name}</h3>
                <AlertChecksChart name={s.name} condition={s.condition!} evaluations={evaluations.get(s.id) ?? []} tz={state.tz} />
                <EvaluationTable name={s.name} condition={s.condition!} evaluations={evaluations.get(s.id) ?? []} tz={state.tz} />
              </section>
            ))}
          </>
        ) : null}
        <h2>Your last {HISTORY_SIZE} runs</h2>
        {history.length === 0 ? (
          <EmptyState>No runs yet.</EmptyState>
        ) : (
          <table className={styles.list} aria-label="History">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">View</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {history.map((h) => (
                <tr key={h.id} data-testid="history-entry">
                  <td>
                    <Link href={open(h.page, h.view)}>{formatTime(h.ranAt, state.tz)}</Link>
                  </td>
                  <td>{describeView(h.page, h.view, state.tz)}</td>
                  <td className={h.error ? styles.errorText : undefined}>
                    {h.error ?? `${formatCount(h.rowCount ?? 0)} rows${h.elapsedMs === null ? '' : ` in ${h.elapsedMs} ms`}`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </main>
    </>
  )
}

const viewDataset = (view: string) => parseViewState(Object.fromEntries(new URLSearchParams(view))).state.dataset

/** `Rows · Gateway DNS · Last 7 days · rcode = 3 · 3 columns`. */
function describeView(page: QueryPage, view: string, tz: string): string {
  const { state } = parseViewState(Object.fromEntries(new URLSearchParams(view)))
  const parts = [page === 'rows' ? 'Rows' : 'Dashboard', DATASETS[state.dataset].label, rangeText(state, tz)]
  if (state.filter) parts.push(state.filter)
  if (state.columns.length) parts.push(`${state.columns.length} columns`)
  return parts.join(' · ')
}

function rangeText(state: ViewState, tz: string): string {
  if (state.range !== 'custom') return RANGE_PRESETS[state.range]
  return `${state.from} → ${state.to}${state.tz === tz ? '' : ` (${state.tz})`}`
}

/** Checks shown per alert, in its chart and its table. */
const CHECKS_SHOWN = 20

const STATE_TEXT: Record<string, string> = { ok: 'OK', firing: 'Firing', resolved: 'Resolved', error: 'Not measured' }

/** The latest checks of one alert, newest first: window, value against threshold, state, delivery per destination. */
function EvaluationTable({ name, condition, evaluations, tz }: { name: string; condition: Condition; evaluations: Evaluation[]; tz: string }) {
  if (!evaluations.length)
    return (
      <p className={styles.hint} data-testid="evaluations-empty">
        Not checked yet.
      </p>
    )
  return (
    <table className={`${styles.list} ${styles.labelled}`} aria-label={`Recent checks of ${name}`} data-testid="evaluations">
      <thead>
        <tr>
          <th scope="col">Checked</th>
          <th scope="col">Window</th>
          <th scope="col">Value</th>
          <th scope="col">State</th>
          <th scope="col">Notification</th>
        </tr>
      </thead>
      <tbody>
        {evaluations.map((e) => (
          <tr key={e.id} data-testid="evaluation">
            <td data-label="Checked">{formatTime(e.at, tz)}</td>
            <td data-label="Window">
              {formatTime(e.windowStart, tz)} → {formatTime(e.windowEnd, tz)}
            </td>
            <td data-label="Value">
              {e.value === null ? '—' : formatValue(condition.metric, e.value)} ({condition.op} {formatValue(condition.metric, e.threshold)}
              {e.consecutiveWindows > 1 ? `; held in ${e.held} of ${e.consecutiveWindows} windows` : ''})
            </td>
            <td data-label="State" className={e.state === 'firing' || e.state === 'error' ? styles.errorText : undefined}>
              {STATE_TEXT[e.state] ?? e.state}
              {e.error ? `: ${e.error}` : ''}
            </td>
            <td data-label="Notification">{describeDelivery(e)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function describeDelivery(e: Evaluation): string {
  if (!e.delivery) return 'None (no change)'
  const outcomes = (e.outcomes ?? []).map(
    (o) => `${o.destination}: ${o.delivered ? `delivered (HTTP ${o.status})` : `not delivered (${o.error ?? `HTTP ${o.status}`})`}`,
  )
  const head =
    { pending: 'Pending', delivered: 'Delivered', suppressed: 'Held back by the cooldown', disabled: 'Not sent: no destination' }[e.delivery] ?? e.delivery
  return outcomes.length ? `${head}: ${outcomes.join('; ')}` : head
}

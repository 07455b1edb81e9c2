import { DATASETS } from '@/lib/query/datasets'
import { addClause, valueClause } from '@/lib/query/drilldown'
import { formatCount, formatMs, formatRate } from '@/lib/query/format'
import type { DashboardPanel as Panel } from '@/lib/query/schemas'
import { viewHref, type ViewState } from '@/lib/query/view-state'
import { DrilldownLink } from './drilldown-link-client'
import { EmptyState } from './states'
import { TimeseriesChart } from './timeseries-chart-client'
import styles from './query.module.css'

// One panel of a dashboard: a line chart over time, bars for counts (each entry filters by its
// value), or latency figures.
export function DashboardPanel({ panel, path, state }: { panel: Panel; path: string; state: ViewState }) {
  return (
    <section className={`${styles.panel} ${panel.kind === 'timeseries' ? styles.wide : ''}`} aria-label={panel.title} data-testid="panel">
      <h2>{panel.title}</h2>
      <PanelBody panel={panel} path={path} state={state} />
      <details>
        <summary>SQL</summary>
        <pre>{panel.sql.text}</pre>
        <span>Parameters: {JSON.stringify(panel.sql.params)}</span>
      </details>
    </section>
  )
}

function PanelBody({ panel, path, state }: { panel: Panel; path: string; state: ViewState }) {
  const dataset = DATASETS[state.dataset]
  switch (panel.kind) {
    case 'timeseries': {
      const def = dataset.panels.find((p) => p.id === panel.id)
      const unit = def?.kind === 'timeseries' ? def.unit : undefined
      return <TimeseriesChart title={panel.title} buckets={panel.buckets} series={panel.series} unit={unit} tz={state.tz} />
    }
    case 'latency':
      return (
        <div className={styles.figures}>
          <Figure label="Requests" value={formatCount(panel.count)} />
          <Figure label="p50" value={formatMs(panel.p50Ms)} />
          <Figure label="p95" value={formatMs(panel.p95Ms)} />
          <Figure label="Errors (5xx)" value={formatRate(panel.errorRate)} testId="error-rate" />
          <Figure label="Client errors (4xx)" value={formatRate(panel.clientErrorRate)} testId="client-error-rate" />
        </div>
      )
    default: {
      if (panel.rows.length === 0) return <EmptyState>No rows.</EmptyState>
      const column = dataset.columns.find((c) => c.name === panel.column) ?? { name: panel.column, type: 'text' as const }
      const href = (op: '=' | '!=', value: (typeof panel.rows)[number]['value']) => viewHref(path, state, { filter: addClause(state.filter, valueClause(column, value, op)), offset: 0 })
      const max = Math.max(...panel.rows.map((r) => r.count))
      return (
        <ul className={styles.bars}>
          {panel.rows.map((r) => {
            const label = r.value === null ? '(none)' : String(r.value)
            return (
              <li key={label}>
                <DrilldownLink className={styles.label} href={href('=', r.value)} excludeHref={href('!=', r.value)} title={`${label}: filter by it (Alt-click excludes it)`}>
                  {label}
                </DrilldownLink>
                <span className={styles.bar} style={{ width: `${(100 * r.count) / max}%` }} />
                <span>{formatCount(r.count)}</span>
              </li>
            )
          })}
        </ul>
      )
    }
  }
}

function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div>
      <span className={styles.hint}>{label}</span>
      <strong data-testid={testId}>{value}</strong>
    </div>
  )
}

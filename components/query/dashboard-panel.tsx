import { renderTime } from '@/lib/view/exact-window'
import { DATASETS } from '@/lib/datasets/catalog'
import { addClause, valueClause } from '@/lib/view/drilldown'
import { formatCount, formatMs, formatRate } from '@/lib/view/format'
import type { DashboardPanel as Panel } from '@/lib/query/schemas'
import { formatTime } from '@/lib/view/time'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import { DashboardChart } from './dashboard-chart-client'
import { DrilldownLink } from './drilldown-link-client'
import { EmptyState } from './states'
import { TimeseriesChart, type ChartSeries } from './timeseries-chart-client'
import styles from './query.module.css'

interface PanelProps {
  panel: Panel
  path: string
  state: ViewState
  range: { from: string; to: string }
  extras?: PanelExtras
}

// One panel of a dashboard: a line chart over time, bars for counts (each entry filters by its
// value), or latency figures.
export function DashboardPanel({ panel, path, state, range, extras }: PanelProps) {
  return (
    <section className={`${styles.panel} ${panel.kind === 'timeseries' ? styles.wide : ''}`} aria-label={panel.title} data-testid="panel">
      <h2>{panel.title}</h2>
      {'approximate' in panel && panel.approximate ? (
        <p
          className={styles.approximate}
          title="Read from per-hour lists that keep each hour's largest values: counts are lower bounds and a value may be missing. Narrow the range to the hour, or filter, to read the rows."
        >
          Approximate: per-hour top lists
        </p>
      ) : null}
      <PanelBody panel={panel} path={path} state={state} range={range} extras={extras} />
      <details>
        <summary>SQL</summary>
        <pre>{panel.sql.text}</pre>
        <span>Parameters: {JSON.stringify(panel.sql.params)}</span>
      </details>
    </section>
  )
}

/** A time chart's split (stacked series in place of its own) and an earlier window's dashed lines. */
export interface PanelExtras {
  series?: ChartSeries[]
  overlay?: ChartSeries[]
}

function PanelBody({ panel, path, state, range, extras }: PanelProps) {
  const dataset = DATASETS[state.dataset]
  switch (panel.kind) {
    case 'timeseries': {
      const def = dataset.panels.find((p) => p.id === panel.id)
      const unit = def?.kind === 'timeseries' ? def.unit : undefined
      if (extras)
        return (
          <TimeseriesChart
            title={panel.title}
            buckets={panel.buckets}
            series={extras.series ?? panel.series}
            bars={extras.series !== undefined}
            stacked={extras.series !== undefined}
            overlay={extras.overlay}
            unit={unit}
            tz={state.tz}
          />
        )
      // A range that ends after now: the rest of its last bucket has not happened yet.
      const now = renderTime()
      const partial = now < Date.parse(range.to)
      return (
        <>
          <DashboardChart
            title={panel.title}
            buckets={panel.buckets}
            series={panel.series}
            unit={unit}
            bucketSeconds={panel.bucketSeconds}
            range={range}
            path={path}
            state={state}
            partialFrom={partial ? now : undefined}
          />
          {partial ? (
            <p className={styles.hint} data-testid="partial-note">
              The last {bucketText(panel.bucketSeconds)} is partial: the range runs until {formatTime(range.to, state.tz)}, after now (shaded).
            </p>
          ) : null}
        </>
      )
    }
    case 'latency': {
      // The rollup keeps a histogram of durations per minute: percentiles from it are estimates.
      const approx = panel.source === 'rollup'
      const ms = (v: number | null) => (approx && v !== null ? `≈ ${formatMs(v)}` : formatMs(v))
      return (
        <div className={styles.figures}>
          <Figure label="Requests" value={formatCount(panel.count)} />
          <Figure
            label={approx ? 'p50 (approximate)' : 'p50'}
            value={ms(panel.p50Ms)}
            testId="p50"
            title={approx ? 'From the rollup’s duration histogram: within 18.9 % + 1 ms of the exact value' : undefined}
          />
          <Figure
            label={approx ? 'p95 (approximate)' : 'p95'}
            value={ms(panel.p95Ms)}
            testId="p95"
            title={approx ? 'From the rollup’s duration histogram: within 18.9 % + 1 ms of the exact value' : undefined}
          />
          <Figure label="Errors (5xx)" value={formatRate(panel.errorRate)} testId="error-rate" />
          <Figure label="Client errors (4xx)" value={formatRate(panel.clientErrorRate)} testId="client-error-rate" />
        </div>
      )
    }
    default: {
      if (panel.rows.length === 0) return <EmptyState>No rows.</EmptyState>
      const column = dataset.columns.find((c) => c.name === panel.column) ?? { name: panel.column, type: 'text' as const }
      const href = (op: '=' | '!=', value: (typeof panel.rows)[number]['value']) =>
        viewHref(path, state, { filter: addClause(state.filter, valueClause(column, value, op)), offset: 0 })
      const max = Math.max(...panel.rows.map((r) => r.count))
      return (
        <ul className={styles.bars}>
          {panel.rows.map((r) => {
            const label = r.value === null ? '(none)' : String(r.value)
            return (
              <li key={label}>
                <DrilldownLink
                  className={styles.label}
                  href={href('=', r.value)}
                  excludeHref={href('!=', r.value)}
                  title={`${label}: filter by it (Alt-click excludes it)`}
                >
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

const bucketText = (s: number) =>
  s === 86_400 ? 'day' : s % 86_400 === 0 ? `${s / 86_400} days` : s % 3600 === 0 ? `${s / 3600} h bucket` : `${s / 60} min bucket`

function Figure({ label, value, testId, title }: { label: string; value: string; testId?: string; title?: string }) {
  return (
    <div title={title}>
      <span className={styles.hint}>{label}</span>
      <strong data-testid={testId}>{value}</strong>
    </div>
  )
}

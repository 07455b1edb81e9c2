import { renderTime } from '@/lib/view/exact-window'
import { DATASETS } from '@/lib/datasets/catalog'
import { addClause, valueClause } from '@/lib/view/drilldown'
import { formatChange, formatCount, formatMs, formatRate } from '@/lib/view/format'
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

/** A time chart's split (stacked series in place of its own) and an earlier window's dashed lines; another panel's earlier window. */
export interface PanelExtras {
  series?: ChartSeries[]
  overlay?: ChartSeries[]
  /** The same panel over the comparison window, and what that window is called. */
  baseline?: Panel
  baselineLabel?: string
}

function PanelBody({ panel, path, state, range, extras }: PanelProps) {
  const dataset = DATASETS[state.dataset]
  switch (panel.kind) {
    case 'timeseries': {
      const def = dataset.panels.find((p) => p.id === panel.id)
      const unit = def?.kind === 'timeseries' ? def.unit : undefined
      if (extras?.series || extras?.overlay)
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
      const before = extras?.baseline?.kind === 'latency' ? extras.baseline : null
      // The earlier window's figure and the change, under each figure when comparing.
      const was = (now: number | null, then: number | null | undefined, text: (v: number | null) => string) =>
        before
          ? `${extras!.baselineLabel}: ${text(then ?? null)}${now !== null && then !== null && then !== undefined ? ` (${formatChange(now, then)})` : ''}`
          : undefined
      const histogramNote = approx ? 'From the rollup’s duration histogram: within 18.9 % + 1 ms of the exact value' : undefined
      return (
        <div className={styles.figures}>
          <Figure label="Requests" value={formatCount(panel.count)} was={was(panel.count, before?.count, (v) => formatCount(v ?? 0))} />
          <Figure
            label={approx ? 'p50 (approximate)' : 'p50'}
            value={ms(panel.p50Ms)}
            testId="p50"
            title={histogramNote}
            was={was(panel.p50Ms, before?.p50Ms, ms)}
          />
          <Figure
            label={approx ? 'p95 (approximate)' : 'p95'}
            value={ms(panel.p95Ms)}
            testId="p95"
            title={histogramNote}
            was={was(panel.p95Ms, before?.p95Ms, ms)}
          />
          <Figure label="Errors (5xx)" value={formatRate(panel.errorRate)} testId="error-rate" was={was(panel.errorRate, before?.errorRate, formatRate)} />
          <Figure
            label="Client errors (4xx)"
            value={formatRate(panel.clientErrorRate)}
            testId="client-error-rate"
            was={was(panel.clientErrorRate, before?.clientErrorRate, formatRate)}
          />
        </div>
      )
    }
    default: {
      if (panel.rows.length === 0) return <EmptyState>No rows.</EmptyState>
      const column = dataset.columns.find((c) => c.name === panel.column) ?? { name: panel.column, type: 'text' as const }
      const href = (op: '=' | '!=', value: (typeof panel.rows)[number]['value']) =>
        viewHref(path, state, { filter: addClause(state.filter, valueClause(column, value, op)), offset: 0 })
      const max = Math.max(...panel.rows.map((r) => r.count))
      // Comparing: each value's count in the earlier window's list (a value not in that list was below its last entry).
      const before = extras?.baseline && extras.baseline.kind === panel.kind ? extras.baseline : null
      const earlier = new Map(before?.rows.map((r) => [JSON.stringify(r.value), r.count]) ?? [])
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
                {before ? (
                  <span
                    className={styles.change}
                    data-testid="panel-change"
                    title={`${extras!.baselineLabel}: ${earlier.has(JSON.stringify(r.value)) ? formatCount(earlier.get(JSON.stringify(r.value))!) : 'not in its list'}`}
                  >
                    {earlier.has(JSON.stringify(r.value)) ? formatChange(r.count, earlier.get(JSON.stringify(r.value))!) : 'not before'}
                  </span>
                ) : null}
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

function Figure({ label, value, testId, title, was }: { label: string; value: string; testId?: string; title?: string; was?: string }) {
  return (
    <div title={title}>
      <span className={styles.hint}>{label}</span>
      <strong data-testid={testId}>{value}</strong>
      {was ? (
        <span className={styles.hint} data-testid={testId ? `${testId}-was` : 'figure-was'}>
          {was}
        </span>
      ) : null}
    </div>
  )
}

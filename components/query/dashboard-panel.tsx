import type { DashboardPanel as Panel } from '@/lib/query/schemas'
import { EmptyState } from './states'
import { TimeseriesChart } from './timeseries-chart-client'
import styles from './query.module.css'

const fmt = new Intl.NumberFormat('en')
const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(2)} %`)
const ms = (v: number | null) => (v === null ? '–' : `${fmt.format(v)} ms`)

// One panel of a dashboard: a line chart over time, bars for counts, or latency figures.
export function DashboardPanel({ panel }: { panel: Panel }) {
  return (
    <section className={`${styles.panel} ${panel.kind === 'timeseries' ? styles.wide : ''}`} aria-label={panel.title} data-testid="panel">
      <h2>{panel.title}</h2>
      <PanelBody panel={panel} />
      <details>
        <summary>SQL</summary>
        <pre>{panel.sql.text}</pre>
        <span>Parameters: {JSON.stringify(panel.sql.params)}</span>
      </details>
    </section>
  )
}

function PanelBody({ panel }: { panel: Panel }) {
  switch (panel.kind) {
    case 'timeseries':
      return <TimeseriesChart title={panel.title} buckets={panel.buckets} series={panel.series} />
    case 'latency':
      return (
        <div className={styles.figures}>
          <div>
            <span className={styles.hint}>Requests</span>
            <strong>{fmt.format(panel.count)}</strong>
          </div>
          <div>
            <span className={styles.hint}>p50</span>
            <strong>{ms(panel.p50Ms)}</strong>
          </div>
          <div>
            <span className={styles.hint}>p95</span>
            <strong>{ms(panel.p95Ms)}</strong>
          </div>
          <div>
            <span className={styles.hint}>Errors (5xx)</span>
            <strong>{pct(panel.errorRate)}</strong>
          </div>
          <div>
            <span className={styles.hint}>Client errors (4xx)</span>
            <strong>{pct(panel.clientErrorRate)}</strong>
          </div>
        </div>
      )
    default: {
      if (panel.rows.length === 0) return <EmptyState>No rows.</EmptyState>
      const max = Math.max(...panel.rows.map((r) => r.count))
      return (
        <ul className={styles.bars}>
          {panel.rows.map((r) => (
            <li key={String(r.value)}>
              <span className={styles.label} title={String(r.value)}>
                {r.value === null ? '(none)' : String(r.value)}
              </span>
              <span className={styles.bar} style={{ width: `${(100 * r.count) / max}%` }} />
              <span>{fmt.format(r.count)}</span>
            </li>
          ))}
        </ul>
      )
    }
  }
}

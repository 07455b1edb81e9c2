import { renderTime } from '@/lib/view/exact-window'
import Link from 'next/link'
import { changePoints, type ChangeKind } from '@/lib/view/change-points'
import { formatCount } from '@/lib/view/format'
import type { ChartData } from '@/lib/query/compare'
import type { HistogramResult } from '@/lib/query/service'
import { formatTime, formatWallTime } from '@/lib/view/time'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import { chartExtras, ChartLegendNote } from './chart-extras'
import { HistogramChart } from './histogram-chart-client'
import styles from './query.module.css'

const MARK: Record<ChangeKind, string> = { spike: '▲', dip: '▼', 'step up': '↗', 'step down': '↘' }

const bucketText = (s: number) => (s % 86_400 === 0 ? `${s / 86_400} d` : s % 3600 === 0 ? `${s / 3600} h` : `${s / 60} min`)

// Rows per time bucket for the rows page's range and filter, above the rows. The chart narrows the
// range by dragging; the table under it is the same data as text, each bucket a link that narrows
// the range to it (the keyboard's way to do what the drag does). Spikes, dips and steps of the
// series are marked on the chart and listed under it, each a link to its bucket.
export function Histogram({
  histogram,
  path,
  state,
  split,
  compare,
  splitBaseline,
}: { histogram: HistogramResult; path: string; state: ViewState } & Omit<ChartData, 'histogram'>) {
  const step = histogram.bucketSeconds * 1000
  const values = histogram.series[0].values
  const nonEmpty = histogram.buckets.map((b, i) => ({ start: Date.parse(b), count: values[i] })).filter((b) => b.count > 0)
  // A range that ends after now: its last bucket is still filling (e.g. “Today”).
  const now = renderTime()
  const partial = now < Date.parse(histogram.range.to)
  const lastStart = Date.parse(histogram.buckets[histogram.buckets.length - 1] ?? histogram.range.from)
  // Change points of the complete buckets (a partial last bucket would read as a dip).
  const changes = changePoints(partial ? values.slice(0, -1) : values).map((c) => ({ ...c, start: Date.parse(histogram.buckets[c.index]) }))
  const markers = changes.map((c) => ({ at: c.start + step / 2, label: MARK[c.kind] }))
  const narrowTo = (start: number) =>
    viewHref(path, state, {
      range: 'custom',
      from: formatWallTime(Math.max(start, Date.parse(histogram.range.from)), state.tz),
      to: formatWallTime(Math.min(start + step, Date.parse(histogram.range.to)), state.tz),
      offset: 0,
    })
  return (
    <section className={styles.histogram} aria-labelledby="histogram-title" data-testid="histogram">
      <h2 className={styles.histogramTitle}>
        <span id="histogram-title">
          <span data-testid="histogram-total">{formatCount(histogram.total)}</span> rows over time
        </span>{' '}
        <span className={styles.hint}>
          · {bucketText(histogram.bucketSeconds)} buckets · from {histogram.source === 'rollup' ? 'the rollup' : 'the rows'} · drag across the chart (or tap a
          bar) to narrow the range
          {partial ? (
            <span data-testid="partial-note"> · the last bucket is partial: the range ends {formatTime(histogram.range.to, state.tz)}, after now (shaded)</span>
          ) : null}
        </span>
      </h2>
      <HistogramChart
        buckets={histogram.buckets}
        values={values}
        bucketSeconds={histogram.bucketSeconds}
        range={histogram.range}
        path={path}
        state={state}
        partialFrom={partial ? now : undefined}
        markers={markers}
        {...chartExtras({ split, compare })}
      />
      {changes.length ? (
        <p className={styles.hint} data-testid="change-points">
          Change points:{' '}
          {changes.map((c, i) => (
            <span key={c.index} data-testid="change-point" data-kind={c.kind}>
              {i ? ' · ' : ''}
              {MARK[c.kind]} {c.kind} at{' '}
              <Link href={narrowTo(c.start)} aria-label={`Narrow to the ${c.kind} at ${formatTime(c.start, state.tz)}`}>
                {formatTime(c.start, state.tz)}
              </Link>{' '}
              ({formatCount(Math.round(c.value))} rows{c.kind.startsWith('step') ? ' a bucket from there' : ''}, usually {formatCount(Math.round(c.expected))})
            </span>
          ))}
        </p>
      ) : null}
      <ChartLegendNote split={split} compare={compare} splitBaseline={splitBaseline} tz={state.tz} />
      <details className={styles.histogramTable}>
        <summary>
          Histogram as a table ({formatCount(nonEmpty.length)} non-empty buckets of {formatCount(histogram.buckets.length)})
        </summary>
        <table className={styles.bucketTable} data-testid="histogram-table">
          <caption className={styles.srOnly}>Rows per {bucketText(histogram.bucketSeconds)} bucket; a bucket’s link narrows the range to it.</caption>
          <thead>
            <tr>
              <th scope="col">Bucket start</th>
              <th scope="col">Rows</th>
            </tr>
          </thead>
          <tbody>
            {nonEmpty.map((b) => (
              <tr key={b.start}>
                <td>
                  <Link href={narrowTo(b.start)} aria-label={`Narrow to ${formatTime(b.start, state.tz)}, ${formatCount(b.count)} rows`}>
                    {formatTime(b.start, state.tz)}
                  </Link>
                </td>
                <td className={styles.num}>
                  {formatCount(b.count)}
                  {partial && b.start === lastStart ? ' (partial)' : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <details className={styles.sql}>
        <summary>Histogram SQL</summary>
        <pre>{histogram.sql.text}</pre>
        <span className={styles.hint}>Parameters: {JSON.stringify(histogram.sql.params)}</span>
      </details>
    </section>
  )
}

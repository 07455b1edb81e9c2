import type { ChartData } from '@/lib/query/compare'
import { COMPARE_MODES, OTHER_LABEL } from '@/lib/view/compare'
import { formatChange, formatCount } from '@/lib/view/format'
import { formatTime } from '@/lib/view/time'
import type { ChartSeries } from './timeseries-chart-client'
import styles from './query.module.css'

type Extras = Omit<ChartData, 'histogram'>

/** The stacked series of a split and the baseline's dashed line, as the chart takes them. */
export function chartExtras({ split, compare }: Extras): { series?: ChartSeries[]; overlay?: ChartSeries[] } {
  return {
    ...(split ? { series: split.series.map((s) => ({ label: s.label, values: s.values })) } : {}),
    ...(compare ? { overlay: [{ label: baselineLabel(compare.compare), values: compare.baseline.series[0].values as number[] }] } : {}),
  }
}

export const baselineLabel = (mode: keyof typeof COMPARE_MODES) =>
  mode === 'previous' ? 'Previous period' : mode === 'day' ? 'A day earlier' : 'A week earlier'

/** One line under a chart saying what it stacks and what the dashed line is, with the figures. */
export function ChartLegendNote({ split, compare, splitBaseline, tz }: Extras & { tz: string }) {
  // Each series' total in the earlier window, by its key. A value missing there had no rows, unless
  // that window has an "other" series: then it may be one of the values counted in it.
  const earlier = new Map(splitBaseline?.series.map((s) => [s.key, s.total]) ?? [])
  const complete = !splitBaseline?.series.some((s) => s.key === OTHER_LABEL)
  const earlierTotal = (key: string) => earlier.get(key) ?? (complete ? 0 : undefined)
  if (!split && !compare) return null
  const total = compare ? compare.histogram.total : 0
  const before = compare ? compare.baseline.total : 0
  const change = before ? ((total - before) / before) * 100 : null
  return (
    <p className={styles.hint} data-testid="chart-note">
      {split ? (
        <span data-testid="split-note">
          Stacked by {split.split} (top {split.top} values and “other”, from {split.source === 'rollup' ? 'the rollup' : 'the rows'}):{' '}
          {split.series.map((s, i) => (
            <span key={s.key} data-testid="split-series">
              {i ? ', ' : ''}
              {s.label} {formatCount(s.total)}
              {splitBaseline ? (
                <span data-testid="split-series-change">
                  {' '}
                  (
                  {earlierTotal(s.key) === undefined
                    ? 'not in the earlier top values'
                    : `${formatChange(s.total, earlierTotal(s.key)!)} from ${formatCount(earlierTotal(s.key)!)}`}
                  )
                </span>
              ) : null}
            </span>
          ))}
          .{' '}
        </span>
      ) : null}
      {compare ? (
        <span data-testid="compare-note">
          Dashed: {COMPARE_MODES[compare.compare].toLowerCase()}, {formatTime(compare.baselineRange.from, tz)} → {formatTime(compare.baselineRange.to, tz)}:{' '}
          <span data-testid="baseline-total">{formatCount(before)}</span> rows against {formatCount(total)}
          {change === null ? '' : ` (${change >= 0 ? '+' : '−'}${Math.abs(change).toFixed(1)} %)`}.
        </span>
      ) : null}
    </p>
  )
}

'use client'

import type { ViewState } from '@/lib/view/view-state'
import { useNarrowOnSelect } from './narrow-on-select'
import { TimeseriesChart, type ChartMarker, type ChartSeries } from './timeseries-chart-client'

interface HistogramChartProps {
  buckets: string[]
  values: number[]
  bucketSeconds: number
  /** The range shown, [from, to) as ISO instants. */
  range: { from: string; to: string }
  path: string
  state: ViewState
  /** Stacked series (a split) in place of the one series of rows. */
  series?: ChartSeries[]
  /** Dashed lines: an earlier window's rows per bucket. */
  overlay?: ChartSeries[]
  /** Now, when the range ends after it: the rest is shaded as not yet happened. */
  partialFrom?: number
  /** Change points, marked on the chart. */
  markers?: ChartMarker[]
}

// The histogram above the rows: dragging across it (or, on a touch screen, dragging or tapping a
// bar) narrows the range to the buckets under the drag (a custom from/to in the page's zone, so the URL and the form show it) and runs the query again.
export function HistogramChart({ buckets, values, bucketSeconds, range, path, state, partialFrom, series, overlay, markers }: HistogramChartProps) {
  const onSelect = useNarrowOnSelect(path, state, bucketSeconds, range)
  return (
    <TimeseriesChart
      title="Rows per time bucket; drag across the chart, or tap a bar, to zoom in on those times"
      buckets={buckets}
      series={series ?? [{ label: 'Rows', values }]}
      stacked={series !== undefined}
      overlay={overlay}
      tz={state.tz}
      bars
      xRange={[Date.parse(range.from), Date.parse(range.to)]}
      onSelect={onSelect}
      partialFrom={partialFrom}
      markers={markers}
      testId="histogram-chart"
    />
  )
}

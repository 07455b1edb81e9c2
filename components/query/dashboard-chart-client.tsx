'use client'

import type { ViewState } from '@/lib/view/view-state'
import { useNarrowOnSelect } from './narrow-on-select'
import { TimeseriesChart, type ChartSeries } from './timeseries-chart-client'

interface DashboardChartProps {
  title: string
  buckets: string[]
  series: ChartSeries[]
  unit?: 'bytes'
  bucketSeconds: number
  /** The dashboard's range, [from, to) as ISO instants. */
  range: { from: string; to: string }
  path: string
  state: ViewState
  partialFrom?: number
}

// A dashboard time chart: dragging across it (or tapping it on a touch screen) narrows the
// dashboard's range to the buckets under the drag, as the rows page's histogram does.
export function DashboardChart({ title, buckets, series, unit, bucketSeconds, range, path, state, partialFrom }: DashboardChartProps) {
  const onSelect = useNarrowOnSelect(path, state, bucketSeconds, range)
  return (
    <TimeseriesChart
      title={`${title}; drag across the chart to narrow the dashboard to those times`}
      buckets={buckets}
      series={series}
      unit={unit}
      tz={state.tz}
      xRange={[Date.parse(range.from), Date.parse(range.to)]}
      onSelect={onSelect}
      partialFrom={partialFrom}
    />
  )
}

'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useRef } from 'react'
import { formatWallTime } from '@/lib/view/time'
import { snapToBuckets, viewHref, type ViewState } from '@/lib/view/view-state'
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
  const router = useRouter()
  const onSelect = useRef<((fromMs: number, toMs: number) => void) | null>(null)
  useEffect(() => {
    onSelect.current = (fromMs, toMs) => {
      const span = snapToBuckets(fromMs, toMs, bucketSeconds * 1000, { from: Date.parse(range.from), to: Date.parse(range.to) })
      if (span.from >= span.to) return
      router.push(viewHref(path, state, { range: 'custom', from: formatWallTime(span.from, state.tz), to: formatWallTime(span.to, state.tz), offset: 0 }))
    }
  }, [router, path, state, bucketSeconds, range.from, range.to])
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

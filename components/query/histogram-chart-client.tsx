'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useRef } from 'react'
import { formatWallTime } from '@/lib/view/time'
import { snapToBuckets, viewHref, type ViewState } from '@/lib/view/view-state'
import { TimeseriesChart, type ChartSeries } from './timeseries-chart-client'

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
}

// The histogram above the rows: dragging across it (or, on a touch screen, dragging or tapping a
// bar) narrows the range to the buckets under the drag (a custom from/to in the page's zone, so the URL and the form show it) and runs the query again.
export function HistogramChart({ buckets, values, bucketSeconds, range, path, state, partialFrom, series, overlay }: HistogramChartProps) {
  const router = useRouter()
  const onSelect = useRef<((fromMs: number, toMs: number) => void) | null>(null)
  const bounds = { from: Date.parse(range.from), to: Date.parse(range.to) }
  useEffect(() => {
    onSelect.current = (fromMs, toMs) => {
      const span = snapToBuckets(fromMs, toMs, bucketSeconds * 1000, { from: Date.parse(range.from), to: Date.parse(range.to) })
      if (span.from >= span.to) return
      router.push(viewHref(path, state, { range: 'custom', from: formatWallTime(span.from, state.tz), to: formatWallTime(span.to, state.tz), offset: 0 }))
    }
  }, [router, path, state, bucketSeconds, range.from, range.to])
  return (
    <TimeseriesChart
      title="Rows per time bucket; drag across the chart, or tap a bar, to zoom in on those times"
      buckets={buckets}
      series={series ?? [{ label: 'Rows', values }]}
      stacked={series !== undefined}
      overlay={overlay}
      tz={state.tz}
      bars
      xRange={[bounds.from, bounds.to]}
      onSelect={onSelect}
      partialFrom={partialFrom}
      testId="histogram-chart"
    />
  )
}

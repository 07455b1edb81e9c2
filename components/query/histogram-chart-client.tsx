'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useRef } from 'react'
import { formatWallTime } from '@/lib/query/time'
import { snapToBuckets, viewHref, type ViewState } from '@/lib/query/view-state'
import { TimeseriesChart } from './timeseries-chart-client'

interface HistogramChartProps {
  buckets: string[]
  values: number[]
  bucketSeconds: number
  /** The range shown, [from, to) as ISO instants. */
  range: { from: string; to: string }
  path: string
  state: ViewState
}

// The histogram above the rows: dragging across it narrows the range to the buckets under the
// drag (a custom from/to in the page's zone, so the URL and the form show it) and runs the query again.
export function HistogramChart({ buckets, values, bucketSeconds, range, path, state }: HistogramChartProps) {
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
      title="Rows per time bucket; drag across the chart to zoom in on those times"
      buckets={buckets}
      series={[{ label: 'Rows', values }]}
      tz={state.tz}
      bars
      xRange={[bounds.from, bounds.to]}
      onSelect={onSelect}
      testId="histogram-chart"
    />
  )
}

'use client'

import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'

const COLORS = ['#0969da', '#bf3989', '#1a7f37', '#9a6700']
const HEIGHT = 220

export interface ChartSeries {
  label: string
  values: number[]
}

// uPlot draws on a canvas, so this is the one leaf of the dashboard that needs the browser. Times
// are shown in UTC like the rest of the application.
export function TimeseriesChart({ title, buckets, series }: { title: string; buckets: string[]; series: ChartSeries[] }) {
  const el = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const node = el.current
    if (!node) return
    const axis = { stroke: getComputedStyle(node).color, grid: { stroke: 'rgba(128,128,128,0.2)' }, ticks: { stroke: 'rgba(128,128,128,0.3)' } }
    const plot = new uPlot(
      {
        width: node.clientWidth || 600,
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5, fill: `${COLORS[i % COLORS.length]}22` }))],
        axes: [axis, { ...axis, size: 60 }],
      },
      [buckets.map((b) => Date.parse(b) / 1000), ...series.map((s) => s.values)],
      node,
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: node.clientWidth, height: HEIGHT }))
    resize.observe(node)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [buckets, series])
  return <div ref={el} role="img" aria-label={title} data-testid="timeseries-chart" />
}

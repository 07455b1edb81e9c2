'use client'

import { useEffect, useRef } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { formatBytes, formatCount } from '@/lib/query/format'
import { formatTime, formatWallTime } from '@/lib/query/time'

const COLORS = ['#0969da', '#bf3989', '#1a7f37', '#9a6700']
const HEIGHT = 220
const DAY_S = 86_400

export interface ChartSeries {
  label: string
  values: number[]
}

/** Time labels in the page's zone and format: `13:00` over `11-21`, or the date alone for whole days. */
function timeLabels(tz: string) {
  return (_u: uPlot, splits: number[], _axis: number, _space: number, incr: number) =>
    splits.map((s) => {
      const wall = formatWallTime(s * 1000, tz) // 2026-11-21 13:00:00
      return incr >= DAY_S ? wall.slice(0, 10) : `${wall.slice(11, 16)}\n${wall.slice(5, 10)}`
    })
}

/** An axis as wide as its longest label (uPlot's fixed default clips "12,345,678" and "1.23 GB"). */
function fitSize(u: uPlot, values: string[] | null, axisIdx: number, cycle: number): number {
  const axis = u.axes[axisIdx] as uPlot.Axis & { _size?: number; font?: [string] }
  if (cycle > 1 && axis._size) return axis._size
  const longest = (values ?? []).reduce((a, v) => (v.length > a.length ? v : a), '')
  u.ctx.font = axis.font?.[0] ?? u.ctx.font
  return Math.ceil(18 + u.ctx.measureText(longest).width / devicePixelRatio)
}

// uPlot draws on a canvas, so this is the one leaf of the dashboard that needs the browser. Axis
// labels and the legend use the application's time format and zone, and KB/MB/GB for bytes.
export function TimeseriesChart({ title, buckets, series, unit, tz }: { title: string; buckets: string[]; series: ChartSeries[]; unit?: 'bytes'; tz: string }) {
  const el = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const node = el.current
    if (!node) return
    const formatValue = (v: number) => (unit === 'bytes' ? formatBytes(v) : formatCount(v))
    const axis = { stroke: getComputedStyle(node).color, grid: { stroke: 'rgba(128,128,128,0.2)' }, ticks: { stroke: 'rgba(128,128,128,0.3)' } }
    const plot = new uPlot(
      {
        width: node.clientWidth || 600,
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
        series: [
          { value: (_u, v) => (v === null ? '–' : formatTime(v * 1000, tz)) },
          ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5, fill: `${COLORS[i % COLORS.length]}22`, value: (_u: uPlot, v: number | null) => (v === null ? '–' : formatValue(v)) })),
        ],
        axes: [
          { ...axis, values: timeLabels(tz), size: 44 },
          { ...axis, values: (_u, splits) => splits.map(formatValue), size: fitSize },
        ],
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
  }, [buckets, series, unit, tz])
  return <div ref={el} role="img" aria-label={title} data-testid="timeseries-chart" />
}

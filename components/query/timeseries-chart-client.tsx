'use client'

import { useEffect, useRef, type RefObject } from 'react'
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

interface ChartProps {
  title: string
  buckets: string[]
  series: ChartSeries[]
  unit?: 'bytes'
  tz: string
  /** Bars (a histogram: each bar covers its bucket) instead of lines. */
  bars?: boolean
  /** The x axis's span in ms, [from, to) of the range; the data's own span otherwise. */
  xRange?: [number, number]
  /** Dragging across the chart selects a span: called with its bounds in ms (no zoom). */
  onSelect?: RefObject<((fromMs: number, toMs: number) => void) | null>
  testId?: string
}

// uPlot draws on a canvas, so this is the one leaf of the dashboard that needs the browser. Axis
// labels and the legend use the application's time format and zone, and KB/MB/GB for bytes.
export function TimeseriesChart({ title, buckets, series, unit, tz, bars, xRange, onSelect, testId = 'timeseries-chart' }: ChartProps) {
  const el = useRef<HTMLDivElement>(null)
  const [xFrom, xTo] = xRange ?? [null, null]
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
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLORS[i % COLORS.length],
            width: bars ? 1 : 1.5,
            fill: `${COLORS[i % COLORS.length]}${bars ? '99' : '22'}`,
            ...(bars ? { paths: uPlot.paths.bars!({ size: [0.9, Infinity], align: 1 }), points: { show: false } } : {}),
            value: (_u: uPlot, v: number | null) => (v === null ? '–' : formatValue(v)),
          })),
        ],
        scales: {
          ...(xFrom !== null && xTo !== null ? { x: { time: true, range: (): uPlot.Range.MinMax => [xFrom / 1000, xTo / 1000] } } : {}),
          // Bars are counts: their axis starts at zero, so a bar's height is its count.
          ...(bars ? { y: { range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, max) * 1.05] } } : {}),
        },
        ...(onSelect
          ? {
              cursor: { drag: { x: true, y: false, setScale: false } },
              hooks: {
                setSelect: [
                  (u: uPlot) => {
                    if (u.select.width < 3) return
                    const from = u.posToVal(u.select.left, 'x') * 1000
                    const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000
                    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
                    onSelect.current?.(from, to)
                  },
                ],
              },
            }
          : {}),
        // Room on the left for the first time label, which is centred on its tick and would otherwise
        // be clipped at the canvas edge on a narrow screen.
        padding: [null, null, null, 14],
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
  }, [buckets, series, unit, tz, bars, xFrom, xTo, onSelect])
  return <div ref={el} role="img" aria-label={title} data-testid={testId} />
}

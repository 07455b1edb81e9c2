'use client'

import { useEffect, useRef, type RefObject } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { formatBytes, formatCount } from '@/lib/view/format'
import { formatTime, formatWallTime } from '@/lib/view/time'

const COLORS = ['#0969da', '#bf3989', '#1a7f37', '#9a6700', '#8250df', '#cf222e', '#57606a']
const OVERLAY_COLORS = ['#6e7781', '#953800']
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
  /** From this instant (ms) on the range has not happened yet: that part is shaded as partial. */
  partialFrom?: number
  testId?: string
  /** Bars stacked: each bucket's series add up (the split of a histogram); the legend shows each one's own value. */
  stacked?: boolean
  /** Dashed lines over the chart: an earlier window's series, bucket for bucket. */
  overlay?: ChartSeries[]
  /** Instants marked with a vertical line and a short label (change points, alert firings). */
  markers?: ChartMarker[]
}

export interface ChartMarker {
  /** Where, in ms (the middle of a bucket for a bucket's event). */
  at: number
  /** A few characters drawn at the top of the line: ▲ spike, ▼ dip… */
  label: string
}

// uPlot draws on a canvas, so this is the one leaf of the dashboard that needs the browser. Axis
// labels and the legend use the application's time format and zone, and KB/MB/GB for bytes.
export function TimeseriesChart({
  title,
  buckets,
  series,
  unit,
  tz,
  bars,
  xRange,
  onSelect,
  partialFrom,
  testId = 'timeseries-chart',
  stacked,
  overlay,
  markers,
}: ChartProps) {
  const el = useRef<HTMLDivElement>(null)
  const [xFrom, xTo] = xRange ?? [null, null]
  useEffect(() => {
    const node = el.current
    if (!node) return
    const formatValue = (v: number) => (unit === 'bytes' ? formatBytes(v) : formatCount(v))
    const axis = { stroke: getComputedStyle(node).color, grid: { stroke: 'rgba(128,128,128,0.2)' }, ticks: { stroke: 'rgba(128,128,128,0.3)' } }
    // Stacked bars: series k is drawn at the sum of series 0…k, the tallest first so each shorter one shows over it.
    const order = stacked ? series.map((_, i) => i).reverse() : series.map((_, i) => i)
    const drawn = stacked
      ? series.map((_, k) => buckets.map((_b, j) => series.slice(0, k + 1).reduce((a, s) => a + (s.values[j] ?? 0), 0)))
      : series.map((s) => s.values)
    const plot = new uPlot(
      {
        width: node.clientWidth || 600,
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), tz),
        series: [
          { value: (_u, v) => (v === null ? '–' : formatTime(v * 1000, tz)) },
          ...order.map((i) => ({
            label: series[i].label,
            stroke: COLORS[i % COLORS.length],
            width: bars ? 1 : 1.5,
            fill: `${COLORS[i % COLORS.length]}${stacked ? '' : bars ? '99' : '22'}`,
            ...(bars ? { paths: uPlot.paths.bars!({ size: [0.9, Infinity], align: 1 }), points: { show: false } } : {}),
            // Stacked, a series is drawn at its running total; the legend shows its own value.
            value: (_u: uPlot, v: number | null, _s: number, idx: number | null) =>
              v === null ? '–' : formatValue(stacked && idx !== null ? (series[i].values[idx] ?? 0) : v),
          })),
          ...(overlay ?? []).map((s, i) => ({
            label: s.label,
            stroke: OVERLAY_COLORS[i % OVERLAY_COLORS.length],
            width: 1.5,
            dash: [6, 4],
            points: { show: false },
            value: (_u: uPlot, v: number | null) => (v === null ? '–' : formatValue(v)),
          })),
        ],
        scales: {
          ...(xFrom !== null && xTo !== null ? { x: { time: true, range: (): uPlot.Range.MinMax => [xFrom / 1000, xTo / 1000] } } : {}),
          // Counts, bytes and durations: the axis starts at zero, so a height is its value and a
          // small change does not look like a large one.
          y: { range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, Math.max(1, max) * 1.05] },
        },
        hooks: {
          // The part of the range after now (a partial last bucket) is shaded and labelled.
          draw: [
            ...(partialFrom !== undefined ? [(u: uPlot) => shadePartial(u, partialFrom / 1000)] : []),
            ...(markers?.length ? [(u: uPlot) => drawMarkers(u, markers, getComputedStyle(node).color)] : []),
          ],
          ...(onSelect
            ? {
                setSelect: [
                  (u: uPlot) => {
                    if (u.select.width < 3) return
                    const from = u.posToVal(u.select.left, 'x') * 1000
                    const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000
                    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
                    onSelect.current?.(from, to)
                  },
                ],
              }
            : {}),
        },
        ...(onSelect ? { cursor: { drag: { x: true, y: false, setScale: false } } } : {}),
        // Room on the left for the first time label, which is centred on its tick and would otherwise
        // be clipped at the canvas edge on a narrow screen.
        padding: [null, null, null, 14],
        axes: [
          { ...axis, values: timeLabels(tz), size: 44 },
          { ...axis, values: (_u, splits) => splits.map(formatValue), size: fitSize },
        ],
      },
      [buckets.map((b) => Date.parse(b) / 1000), ...order.map((i) => drawn[i]), ...(overlay ?? []).map((s) => buckets.map((_, i) => s.values[i] ?? null))],
      node,
    )
    const resize = new ResizeObserver(() => plot.setSize({ width: node.clientWidth, height: HEIGHT }))
    resize.observe(node)
    const untouch = onSelect ? touchSelect(plot, (from, to) => onSelect.current?.(from, to)) : undefined
    return () => {
      untouch?.()
      resize.disconnect()
      plot.destroy()
    }
  }, [buckets, series, unit, tz, bars, xFrom, xTo, onSelect, partialFrom, overlay, stacked, markers])
  return <div ref={el} role="img" aria-label={title} data-testid={testId} />
}

/** A dashed vertical line per marker, its label at the top. */
function drawMarkers(u: uPlot, markers: ChartMarker[], color: string) {
  const ctx = u.ctx
  ctx.save()
  ctx.strokeStyle = color
  ctx.fillStyle = color
  ctx.lineWidth = devicePixelRatio
  ctx.setLineDash([3 * devicePixelRatio, 3 * devicePixelRatio])
  ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`
  ctx.textAlign = 'center'
  ctx.textBaseline = 'top'
  for (const m of markers) {
    const x = Math.round(u.valToPos(m.at / 1000, 'x', true))
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue
    ctx.beginPath()
    ctx.moveTo(x, u.bbox.top + 14 * devicePixelRatio)
    ctx.lineTo(x, u.bbox.top + u.bbox.height)
    ctx.stroke()
    ctx.fillText(m.label, x, u.bbox.top)
  }
  ctx.restore()
}

/** Shades [from, end of the x scale) (seconds): the part of the range that has not happened yet. */
function shadePartial(u: uPlot, from: number) {
  const max = u.scales.x.max
  if (max === undefined || from >= max) return
  const left = Math.max(u.bbox.left, Math.round(u.valToPos(from, 'x', true)))
  const right = u.bbox.left + u.bbox.width
  const ctx = u.ctx
  ctx.save()
  ctx.fillStyle = 'rgba(128,128,128,0.16)'
  ctx.fillRect(left, u.bbox.top, right - left, u.bbox.height)
  ctx.strokeStyle = 'rgba(128,128,128,0.7)'
  ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio])
  ctx.beginPath()
  ctx.moveTo(left, u.bbox.top)
  ctx.lineTo(left, u.bbox.top + u.bbox.height)
  ctx.stroke()
  ctx.restore()
}

/**
 * Touch on a chart that selects spans (uPlot's drag is mouse-only): a horizontal drag selects the
 * span under it, a tap selects the bucket under the finger. Vertical movement still scrolls the page.
 */
// A finger moves a few pixels in a tap, and an hour of a day's chart on a phone is narrower than that
// slop: a movement under the minimum touch target size (24 px, WCAG 2.5.8) is a tap on the bucket
// where the finger came down, not a drag across two buckets.
const TOUCH_TARGET_PX = 24

function touchSelect(u: uPlot, select: (fromMs: number, toMs: number) => void): () => void {
  const over = u.over
  over.style.touchAction = 'pan-y'
  let start: { x: number; y: number } | null = null
  let last = 0
  const localX = (t: Touch) => t.clientX - over.getBoundingClientRect().left
  const onStart = (e: TouchEvent) => {
    if (e.touches.length !== 1) return (start = null)
    start = { x: localX(e.touches[0]), y: e.touches[0].clientY }
    last = start.x
  }
  const onMove = (e: TouchEvent) => {
    if (!start || e.touches.length !== 1) return
    last = Math.max(0, Math.min(over.clientWidth, localX(e.touches[0])))
    if (Math.abs(last - start.x) >= TOUCH_TARGET_PX) {
      e.preventDefault()
      u.setSelect({ left: Math.min(start.x, last), width: Math.abs(last - start.x), top: 0, height: over.clientHeight }, false)
    }
  }
  const onEnd = (e: TouchEvent) => {
    if (!start) return
    const [a, b] = Math.abs(last - start.x) < TOUCH_TARGET_PX ? [start.x, start.x] : [Math.min(start.x, last), Math.max(start.x, last)]
    start = null
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
    e.preventDefault() // no emulated mouse click after the touch
    select(u.posToVal(a, 'x') * 1000, u.posToVal(b, 'x') * 1000)
  }
  over.addEventListener('touchstart', onStart, { passive: true })
  over.addEventListener('touchmove', onMove, { passive: false })
  over.addEventListener('touchend', onEnd)
  return () => {
    over.removeEventListener('touchstart', onStart)
    over.removeEventListener('touchmove', onMove)
    over.removeEventListener('touchend', onEnd)
  }
}

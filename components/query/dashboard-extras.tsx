import type { runDashboardCharts } from '@/lib/query/compare'
import type { DashboardPanel } from '@/lib/query/schemas'
import { baselineLabel } from './chart-extras'
import type { PanelExtras } from './dashboard-panel'

/**
 * A dashboard time chart's extras: the same panel over the baseline window as dashed lines
 * (bucket i of each), and for the rows-over-time panel (one count series) the split's stacked series.
 */
export function dashboardExtras(panel: DashboardPanel, charts: Awaited<ReturnType<typeof runDashboardCharts>>): PanelExtras | undefined {
  if (panel.kind !== 'timeseries') return undefined
  const before = charts.baseline?.panels.find((p) => p.id === panel.id)
  const overlay =
    before?.kind === 'timeseries' && charts.compare
      ? before.series.map((s) => ({ label: `${s.label}, ${baselineLabel(charts.compare!).toLowerCase()}`, values: s.values }))
      : undefined
  const countPanel = panel.series.length === 1 && panel.id === 'count_over_time'
  const series =
    countPanel && charts.split && charts.split.buckets.length === panel.buckets.length
      ? charts.split.series.map((s) => ({ label: s.label, values: s.values }))
      : undefined
  if (!overlay && !series) return undefined
  return { ...(overlay ? { overlay } : {}), ...(series ? { series } : {}) }
}

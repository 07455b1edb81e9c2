import type { runDashboardCharts } from '@/lib/query/compare'
import type { DashboardPanel } from '@/lib/query/schemas'
import { baselineLabel } from './chart-extras'
import type { PanelExtras } from './dashboard-panel'

/**
 * A dashboard panel's extras: for a time chart the same panel over the baseline window as dashed
 * lines (bucket i of each), and for the rows-over-time panel (one count series) the split's stacked
 * series; for figures and top lists the same panel over the baseline window, shown beside each value.
 */
export function dashboardExtras(panel: DashboardPanel, charts: Awaited<ReturnType<typeof runDashboardCharts>>): PanelExtras | undefined {
  const before = charts.baseline?.panels.find((p) => p.id === panel.id)
  // Figures and lists show the same panel's earlier window beside their own.
  if (panel.kind !== 'timeseries') return before && charts.compare ? { baseline: before, baselineLabel: baselineLabel(charts.compare) } : undefined
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

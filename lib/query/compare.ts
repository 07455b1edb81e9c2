import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { getDataset, type DatasetDef, type DatasetId } from '@/lib/datasets/catalog'
import { rollupAligned, rollupDimensionFor, rollupRowsSql, rollupSpec } from '@/lib/datasets/storage/rollups'
import { AppError } from '@/lib/errors'
import { checkFilter, type CheckedFilter } from '@/lib/query/filter'
import { CompareRequest, resolveRange, type CompareResult } from '@/lib/query/schemas'
import {
  exactRollupColumns,
  parse,
  readOnly,
  runDashboard,
  runHistogram,
  statement,
  whereSql,
  type DashboardResult,
  type ExecOptions,
  type HistogramResult,
} from '@/lib/query/service'
import { runSplit, type SplitResult } from '@/lib/query/split'
import { baselineRange, type CompareMode } from '@/lib/view/compare'

// Compare with an earlier window: the histogram of the range and of its baseline (the period just
// before, same length, or the same window a day or a week earlier), and "what changed": for each
// categorical column (the dataset's rollup dimensions), the values whose share of the rows moved
// most between the two windows.
//
// A column's shares come from its rollup rows when both windows are whole minutes, the filter is
// on no column or on that column, and (a column kept per hour only) its capped lists left nothing
// out in either window: exact; else from the rows, at most COMPARE_SAMPLE_ROWS of each
// window (the newest first, through the time index), and the column says it was sampled.

export { CompareRequest, type CompareResult } from '@/lib/query/schemas'

export const COMPARE_SAMPLE_ROWS = 10_000
const id = (name: string) => sql`${sql.identifier(name)}`

export interface CompareOptions extends ExecOptions {
  /** Rows read per window when the rows answer; may only lower COMPARE_SAMPLE_ROWS (tests). */
  sampleRows?: number
}

const sampleRows = (opts: CompareOptions) => Math.min(opts.sampleRows ?? COMPARE_SAMPLE_ROWS, COMPARE_SAMPLE_ROWS)

interface Window {
  from: Date
  to: Date
}

/** One statement: each value's rows in the current (p = 0) and baseline (p = 1) windows, the `top` largest share moves. */
function changesSql(
  dataset: DatasetDef,
  column: string,
  current: Window,
  baseline: Window,
  filter: CheckedFilter,
  top: number,
  opts: CompareOptions & { exact: boolean },
): { query: SQL; source: 'rollup' | 'rows' } {
  const spec = rollupSpec(dataset)
  const dimension = opts.exact ? rollupDimensionFor(spec, { id: `changes_${column}`, kind: 'top', title: column, column, limit: top }, filter.columns) : null
  const c = id(column)
  const where = filter.sql ? sql` WHERE (${sql.raw(filter.sql)})` : sql``
  const part = (p: number, w: Window) =>
    dimension !== null
      ? sql`SELECT ${sql.raw(String(p))} AS "p", (${c})::text AS "value", "rows" AS "n" FROM ${rollupRowsSql(spec, dimension, w.from, w.to, true)}${where}`
      : sql`SELECT ${sql.raw(String(p))} AS "p", (${c})::text AS "value", 1 AS "n" FROM (SELECT ${c} FROM ${id(dataset.table)} WHERE ${whereSql(dataset, w.from, w.to, filter.sql)} ORDER BY ${id(dataset.timeColumn)} DESC LIMIT ${sampleRows(opts)}) AS "sample"`
  const query = sql`WITH "per_value" AS (
  SELECT "value", coalesce(sum("n") FILTER (WHERE "p" = 0), 0) AS "current", coalesce(sum("n") FILTER (WHERE "p" = 1), 0) AS "baseline"
  FROM (${part(0, current)} UNION ALL ${part(1, baseline)}) AS "both" GROUP BY 1
), "shares" AS (
  SELECT "value", "current", "baseline", sum("current") OVER () AS "current_total", sum("baseline") OVER () AS "baseline_total" FROM "per_value"
)
SELECT "value", "current", "baseline", "current_total", "baseline_total",
  coalesce("current" / nullif("current_total", 0), 0) - coalesce("baseline" / nullif("baseline_total", 0), 0) AS "delta"
FROM "shares" ORDER BY abs(coalesce("current" / nullif("current_total", 0), 0) - coalesce("baseline" / nullif("baseline_total", 0), 0)) DESC, "value" NULLS LAST LIMIT ${top}`
  return { query, source: dimension === null ? 'rows' : 'rollup' }
}

// POST /query/api/compare - the histogram of a range and of its baseline, and what changed per column
export async function runCompare(input: CompareRequest, opts: CompareOptions = {}): Promise<CompareResult> {
  const req = parse(CompareRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const base = baselineRange(req.compare, from.toISOString(), to.toISOString())
  const baseline = { from: new Date(base.dateFrom), to: new Date(base.dateTo) }
  const filter = await checkFilter(req.filter, dataset)
  const columns = req.columns ?? dataset.rollup.dimensions
  const unknown = columns.filter((c) => !dataset.rollup.dimensions.includes(c))
  if (unknown.length)
    throw new AppError(
      'invalid_input',
      `columns: not categorical columns of ${dataset.id}: ${unknown.join(', ')} (allowed: ${dataset.rollup.dimensions.join(', ')})`,
    )
  const started = performance.now()
  // Columns the rollup counts exactly in both windows (an hour-only one: when its capped lists left nothing out).
  const spec = rollupSpec(dataset)
  const aligned = opts.rollups !== false && rollupAligned(from, to) && rollupAligned(baseline.from, baseline.to)
  const [inRange, inBaseline] = aligned
    ? await Promise.all([exactRollupColumns(spec, columns, from, to, opts), exactRollupColumns(spec, columns, baseline.from, baseline.to, opts)])
    : [new Set<string>(), new Set<string>()]
  const exact = new Set([...inRange].filter((c) => inBaseline.has(c)))
  const range = { dataset: req.dataset, filter: req.filter }
  const [histogram, baselineHistogram, changes] = await Promise.all([
    runHistogram({ ...range, dateFrom: from.toISOString(), dateTo: to.toISOString() }, opts),
    runHistogram({ ...range, dateFrom: baseline.from.toISOString(), dateTo: baseline.to.toISOString() }, opts),
    Promise.all(
      columns.map(async (column) => {
        const { query, source } = changesSql(dataset, column, { from, to }, baseline, filter, req.top, { ...opts, exact: exact.has(column) })
        const rows = await readOnly(opts, (session) => session.execute(query))
        const currentTotal = Number(rows[0]?.current_total ?? 0)
        const baselineTotal = Number(rows[0]?.baseline_total ?? 0)
        return {
          column,
          source,
          sampled: source === 'rows' && (currentTotal >= sampleRows(opts) || baselineTotal >= sampleRows(opts)),
          currentTotal,
          baselineTotal,
          values: rows.map((r) => {
            const current = Number(r.current)
            const before = Number(r.baseline)
            return {
              value: r.value === null || r.value === undefined ? null : String(r.value),
              current,
              baseline: before,
              currentShare: currentTotal ? current / currentTotal : 0,
              baselineShare: baselineTotal ? before / baselineTotal : 0,
              delta: Number(r.delta),
            }
          }),
          sql: statement(query),
        }
      }),
    ),
  ])
  return {
    dataset: req.dataset,
    compare: req.compare,
    range: { from: from.toISOString(), to: to.toISOString() },
    baselineRange: { from: baseline.from.toISOString(), to: baseline.to.toISOString() },
    shiftMs: base.shiftMs,
    filter: filter.sql,
    histogram,
    baseline: baselineHistogram,
    changes,
    elapsedMs: Math.round((performance.now() - started) * 100) / 100,
  }
}

export interface ChartData {
  histogram: HistogramResult
  /** The histogram stacked by `split`, when the page asks for it. */
  split?: SplitResult
  /** The comparison with an earlier window, when the page asks for it. */
  compare?: CompareResult
  /** Both asked for: the split over the earlier window, for each series' change. */
  splitBaseline?: SplitResult
}

/**
 * What a page's time chart shows for a request and its `compare` and `split`: the histogram, and
 * the split and the comparison when asked for, run concurrently (the comparison carries the
 * range's own histogram, so it is not run twice); with both, the split of the earlier window too,
 * so each series says how it moved.
 */
export async function runChartData(
  request: { dataset: DatasetId; dateFrom: string; dateTo: string; filter?: string },
  view: { compare?: CompareMode; split?: string },
  opts: CompareOptions = {},
): Promise<ChartData> {
  const { from, to } = resolveRange(request.dateFrom, request.dateTo)
  const base = view.compare && view.split ? baselineRange(view.compare, from.toISOString(), to.toISOString()) : null
  const [compare, split, histogram, splitBaseline] = await Promise.all([
    view.compare ? runCompare({ ...request, compare: view.compare }, opts) : undefined,
    view.split ? runSplit({ ...request, split: view.split }, opts) : undefined,
    view.compare ? undefined : runHistogram(request, opts),
    base && view.split ? runSplit({ ...request, dateFrom: base.dateFrom, dateTo: base.dateTo, split: view.split }, opts) : undefined,
  ])
  return {
    histogram: (compare?.histogram as HistogramResult | undefined) ?? histogram!,
    ...(split ? { split } : {}),
    ...(compare ? { compare } : {}),
    ...(splitBaseline ? { splitBaseline } : {}),
  }
}

/**
 * The dashboard's compare and split: every panel over the baseline window (its time charts draw
 * them dashed), and the rows over time split by a column.
 */
export async function runDashboardCharts(
  request: { dataset: DatasetId; dateFrom: string; dateTo: string; filter?: string },
  view: { compare?: CompareMode; split?: string },
  opts: CompareOptions = {},
): Promise<{ baseline?: DashboardResult; compare?: CompareMode; split?: SplitResult }> {
  const base = view.compare
    ? baselineRange(
        view.compare,
        resolveRange(request.dateFrom, request.dateTo).from.toISOString(),
        resolveRange(request.dateFrom, request.dateTo).to.toISOString(),
      )
    : null
  const [baseline, split] = await Promise.all([
    base ? runDashboard({ ...request, dateFrom: base.dateFrom, dateTo: base.dateTo }, opts) : undefined,
    view.split ? runSplit({ ...request, split: view.split }, opts) : undefined,
  ])
  return { ...(baseline ? { baseline, compare: view.compare } : {}), ...(split ? { split } : {}) }
}

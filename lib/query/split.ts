import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { getDataset, type DatasetDef } from '@/lib/datasets/catalog'
import { parseTimestamp } from '@/lib/db/rows'
import { rollupAligned, rollupDimensionFor, rollupRowsSql, rollupSpec } from '@/lib/datasets/storage/rollups'
import { AppError } from '@/lib/errors'
import { checkFilter, type CheckedFilter } from '@/lib/query/filter'
import { resolveRange, SplitRequest, type SplitResult } from '@/lib/query/schemas'
import { bucketSeconds, parse, readOnly, statement, whereSql, type ExecOptions } from '@/lib/query/service'
import { findSplitColumn, OTHER_LABEL, splitColumns, SPLIT_TOP_DEFAULT, type SplitColumn } from '@/lib/view/compare'

// Split by: rows per time bucket stacked by the values of one low-cardinality column (a status
// column also as its class, 2xx…5xx), the top N values over the whole range as their own series and
// the rest summed as "other", so the series of a bucket add up to the histogram's bar. One
// statement: per (bucket, value) counts, the top values ranked over the range, and the fold of the
// others. From the rollup rows of the split column when the range is whole minutes and the filter
// is on no column or on that same column (those rows partition every row by its value); else from
// the rows.

export { SplitRequest, type SplitResult } from '@/lib/query/schemas'

const EPOCH = '1970-01-01T00:00:00.000Z'
const id = (name: string) => sql`${sql.identifier(name)}`

/** The value a row is split on, as text: `5xx` for a status class. */
function valueSql(split: SplitColumn, column: SQL): SQL {
  return split.statusClass ? sql`((${column} / 100)::int::text || 'xx')` : sql`(${column})::text`
}

export interface SplitSource {
  query: SQL
  source: 'rollup' | 'rows'
}

/** Per (bucket, value) counts of [from, to) as `"bucket", "value", "n"`: the rollup or the rows. */
export function splitCountsSql(
  dataset: DatasetDef,
  split: SplitColumn | null,
  from: Date,
  to: Date,
  filter: CheckedFilter,
  bucketS: number,
  opts: ExecOptions,
): SplitSource {
  const spec = rollupSpec(dataset)
  const bucketOf = (column: SQL) => sql`date_bin(${`${bucketS} seconds`}::interval, ${column}, ${EPOCH}::timestamptz)`
  const dimension =
    opts.rollups !== false && rollupAligned(from, to) ? rollupDimensionFor(spec, 'count', split ? [...filter.columns, split.column] : filter.columns) : null
  const where = filter.sql ? sql` WHERE (${sql.raw(filter.sql)})` : sql``
  const value = split ? valueSql(split, id(split.column)) : sql`NULL::text`
  if (dimension !== null) {
    const rows = rollupRowsSql(spec, dimension, from, to, bucketS % 3600 === 0)
    return {
      source: 'rollup',
      query: sql`SELECT ${bucketOf(id('bucket'))} AS "bucket", ${value} AS "value", sum("rows") AS "n" FROM ${rows}${where} GROUP BY 1, 2`,
    }
  }
  return {
    source: 'rows',
    query: sql`SELECT ${bucketOf(id(dataset.timeColumn))} AS "bucket", ${value} AS "value", count(*) AS "n" FROM ${id(dataset.table)} WHERE ${whereSql(dataset, from, to, filter.sql)} GROUP BY 1, 2`,
  }
}

// POST /query/api/split - the histogram of a range stacked by a column's top values and "other"
export async function runSplit(input: SplitRequest, opts: ExecOptions = {}): Promise<SplitResult> {
  const req = parse(SplitRequest, input)
  const dataset = getDataset(req.dataset)
  const split = findSplitColumn(req.dataset, req.split)
  if (!split)
    throw new AppError(
      'invalid_input',
      `split: ${JSON.stringify(req.split)} cannot split ${dataset.id}; columns: ${splitColumns(req.dataset)
        .map((c) => c.name)
        .join(', ')}`,
    )
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = await checkFilter(req.filter, dataset)
  const top = req.top ?? SPLIT_TOP_DEFAULT
  const bucketS = bucketSeconds(to.getTime() - from.getTime())
  const counts = splitCountsSql(dataset, split, from, to, filter, bucketS, opts)
  // NULL is a value of its own ("(null)"); "other" is every value outside the top list.
  const query = sql`WITH "counts" AS (${counts.query}),
"top" AS (SELECT "value", sum("n") AS "total" FROM "counts" GROUP BY 1 ORDER BY 2 DESC, 1 NULLS LAST LIMIT ${top})
SELECT "bucket", "value", "is_top", sum("n") AS "n" FROM (
  SELECT c."bucket", CASE WHEN t."total" IS NULL THEN NULL ELSE c."value" END AS "value", t."total" IS NOT NULL AS "is_top", c."n"
  FROM "counts" AS c LEFT JOIN "top" AS t ON c."value" IS NOT DISTINCT FROM t."value"
) AS "folded" GROUP BY 1, 2, 3`
  const started = performance.now()
  const rows = await readOnly(opts, (session) => session.execute(query))
  const step = bucketS * 1000
  const buckets: string[] = []
  const index = new Map<number, number>()
  for (let t = Math.floor(from.getTime() / step) * step; t < to.getTime(); t += step) {
    index.set(t, buckets.length)
    buckets.push(new Date(t).toISOString())
  }
  const series = new Map<string, { key: string; label: string; values: number[]; total: number }>()
  for (const row of rows) {
    const isTop = row.is_top === true || row.is_top === 't' || row.is_top === 'true'
    const key = isTop ? (row.value === null ? '(null)' : String(row.value)) : OTHER_LABEL
    const i = index.get(toMs(row.bucket))
    if (i === undefined) continue
    const s = series.get(`${isTop}:${key}`) ?? { key, label: key, values: buckets.map(() => 0), total: 0 }
    s.values[i] += Number(row.n)
    s.total += Number(row.n)
    series.set(`${isTop}:${key}`, s)
  }
  const ordered = [...series.entries()]
    .sort(([a, x], [b, y]) => (a.startsWith('false') ? 1 : 0) - (b.startsWith('false') ? 1 : 0) || y.total - x.total || x.key.localeCompare(y.key))
    .map(([, s]) => s)
  return {
    dataset: req.dataset,
    split: split.name,
    column: split.column,
    top,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    source: counts.source,
    bucketSeconds: bucketS,
    buckets,
    series: ordered,
    total: ordered.reduce((a, s) => a + s.total, 0),
    elapsedMs: Math.round((performance.now() - started) * 100) / 100,
    sql: statement(query),
  }
}

/** A bucket as the driver returns it (Date or timestamptz text) → epoch ms. */
export function toMs(v: unknown): number {
  return parseTimestamp(v).getTime()
}

import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { getDataset, type ColumnType, type DatasetDef } from '@/lib/datasets/catalog'
import { rollupAligned, rollupDimensionFor, rollupRowsSql, rollupSpec } from '@/lib/datasets/storage/rollups'
import { AppError } from '@/lib/errors'
import { checkFilter } from '@/lib/query/filter'
import { FacetsRequest, resolveRange, type FacetsResult } from '@/lib/query/schemas'
import { columnValue, exactRollupColumns, parse, readOnly, statement, whereSql, type ExecOptions } from '@/lib/query/service'

// Facets: the top values of each categorical column (the columns the dataset's rollup groups by)
// for a range and filter, with counts and their share. A column is read from the rollup when the
// rollup can answer it exactly (whole-minute range, the filter on no column or on that one
// rollup column: lib/datasets/storage/rollups.ts rollupDimensionFor, and for a column kept per hour
// only, capped lists that left nothing out in the range); every other column is
// counted within a bounded sample, the newest FACET_SAMPLE_ROWS matching rows of the range (read
// backwards along the time index, so its cost is bounded by the limit, not the range). The
// answer says which, and when the range held fewer rows than the limit the sample is all of them.
// One statement per rollup column and one over the sample, each shown like every panel's.

export const FACET_SAMPLE_ROWS = 10_000

const id = (name: string) => sql.identifier(name)

/** The columns facets are shown for: the rollup's dimensions (categorical by construction), in the dataset's column order. */
export function facetColumns(dataset: DatasetDef): string[] {
  const dims = new Set(dataset.rollup.dimensions)
  return dataset.columns.filter((c) => dims.has(c.name) && c.type !== 'timestamp' && c.type !== 'json').map((c) => c.name)
}

export async function runFacets(input: FacetsRequest, opts: ExecOptions = {}): Promise<FacetsResult> {
  const req = parse(FacetsRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = await checkFilter(req.filter, dataset)
  const spec = rollupSpec(dataset)
  const aligned = opts.rollups !== false && rollupAligned(from, to)
  const columns = facetColumns(dataset)
  const fromRollup: Array<{ column: string; dimension: string }> = []
  const fromSample: string[] = []
  // An hour-only column whose capped per-hour lists left values out is counted in the sample instead.
  const exact = aligned ? await exactRollupColumns(spec, columns, from, to, opts) : new Set<string>()
  for (const column of columns) {
    const dimension = exact.has(column)
      ? rollupDimensionFor(spec, { id: `facet_${column}`, kind: 'top', title: column, column, limit: req.values }, filter.columns)
      : null
    if (dimension === null) fromSample.push(column)
    else fromRollup.push({ column, dimension })
  }
  const filterWhere = filter.sql ? sql` WHERE (${sql.raw(filter.sql)})` : sql``

  // One statement per rollup column, run concurrently like the dashboard's panels: each is small
  // (a few thousand hour rows), where one UNION of them all would cross the planner's JIT threshold
  // and spend longer compiling than reading.
  const rollupQueries = fromRollup.map(({ column, dimension }) => ({
    column,
    query: topOfRelation(column, rollupRowsSql(spec, dimension, from, to, true), sql`sum("rows")::bigint`, filterWhere, req.values),
  }))
  // The sample: the newest rows of the range that match, only the columns it is read for.
  const sampleQuery = fromSample.length
    ? sql`WITH "sample" AS MATERIALIZED (SELECT ${sql.join(fromSample.map(id), sql`, `)} FROM ${id(dataset.table)} WHERE ${whereSql(dataset, from, to, filter.sql)} ORDER BY ${id(dataset.timeColumn)} DESC${req.exact ? sql`` : sql` LIMIT ${FACET_SAMPLE_ROWS}`})
${sql.join([sql`(SELECT '' AS "column", NULL::jsonb AS "value", count(*)::bigint AS "count", count(*)::bigint AS "total", 0::bigint AS "distinct" FROM "sample")`, ...fromSample.map((column) => topOfRelation(column, sql`"sample"`, sql`count(*)::bigint`, sql``, req.values))], sql` UNION ALL `)}`
    : null

  const started = performance.now()
  const [sampleRows, ...perColumn] = await Promise.all([
    sampleQuery ? readOnly(opts, (session) => session.execute(sampleQuery)) : [],
    ...rollupQueries.map((q) => readOnly(opts, (session) => session.execute(q.query))),
  ])
  const rollupRows = perColumn.flat()
  const elapsedMs = Math.round((performance.now() - started) * 100) / 100

  const sampleSize = sampleQuery ? Number(sampleRows.find((r) => r.column === '')?.count ?? 0) : 0
  const complete = req.exact || sampleSize < FACET_SAMPLE_ROWS
  // A full sample says what it is out of: every matching row, counted (index-bounded, cheaper than
  // the exact facets); a count that runs out of time leaves the total unknown rather than failing the facets.
  const countQuery = sql`SELECT count(*)::bigint AS "count" FROM ${id(dataset.table)} WHERE ${whereSql(dataset, from, to, filter.sql)}`
  let matching: number | null = sampleSize
  if (sampleQuery && !complete) {
    try {
      matching = Number((await readOnly(opts, (session) => session.execute(countQuery)))[0]?.count ?? 0)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      matching = null
    }
  }
  const byColumn = new Map<string, FacetsResult['facets'][number]>()
  const collect = (rows: Array<Record<string, unknown>>, source: 'rollup' | 'sample') => {
    for (const r of rows) {
      const column = String(r.column)
      if (!column) continue
      const facet = byColumn.get(column) ?? { column, source, total: Number(r.total), distinct: Number(r.distinct), values: [] }
      byColumn.set(column, facet)
      const count = Number(r.count)
      facet.values.push({ value: columnValue(typeOf(dataset, column), r.value), count, share: facet.total ? count / facet.total : 0 })
    }
  }
  collect(rollupRows, 'rollup')
  collect(sampleRows, 'sample')
  const facets = columns.map(
    (column) =>
      byColumn.get(column) ?? {
        column,
        source: fromSample.includes(column) ? ('sample' as const) : ('rollup' as const),
        total: fromSample.includes(column) ? sampleSize : 0,
        distinct: 0,
        values: [],
      },
  )
  for (const facet of facets) facet.values.sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)))
  return {
    dataset: req.dataset,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    facets,
    sample: sampleQuery ? { limit: req.exact ? null : FACET_SAMPLE_ROWS, rows: sampleSize, complete, matching } : null,
    statements: [
      ...rollupQueries.map((q) => ({ label: `${q.column}, from the rollup`, sql: statement(q.query) })),
      ...(sampleQuery
        ? [
            {
              label: req.exact ? 'Facets from every matching row' : `Facets from the newest ${FACET_SAMPLE_ROWS.toLocaleString('en')} matching rows`,
              sql: statement(sampleQuery),
            },
          ]
        : []),
      ...(sampleQuery && !complete ? [{ label: 'Matching rows of the range', sql: statement(countQuery) }] : []),
    ],
    elapsedMs,
  }
}

/** One column's top values as a subquery: `column`, `value` (jsonb, so typed across columns), `count`, `total`, `distinct`. */
function topOfRelation(column: string, relation: SQL, count: SQL, where: SQL, values: number): SQL {
  const c = id(column)
  return sql`(SELECT ${column}::text AS "column", to_jsonb("value") AS "value", "count", "total", "distinct" FROM (SELECT ${c} AS "value", ${count} AS "count", (sum(${count}) OVER ())::bigint AS "total", (count(*) OVER ())::bigint AS "distinct" FROM ${relation}${where} GROUP BY 1 ORDER BY 2 DESC, 1 NULLS LAST LIMIT ${values}) AS "top")`
}

function typeOf(dataset: DatasetDef, column: string): ColumnType {
  return dataset.columns.find((c) => c.name === column)?.type ?? 'text'
}

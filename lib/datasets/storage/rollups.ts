import { getTableColumns, sql, type SQL } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { Db } from '@/lib/db/client'
import { rowsOf } from '@/lib/db/rows'
import type { DatasetDef, PanelDef } from '@/lib/datasets/types'
import { rollupTable } from '@/lib/datasets/storage/columns'

// Rollups: per-minute and per-hour aggregates of each dataset, written by the same statement that
// inserts the rows (so a rollup never disagrees with its rows) and read by the dashboards whenever
// the filter allows it.
//
// A rollup row holds the aggregates of one (grain, bucket, dimension, value): `dimension` names the
// column grouped by ('' for the totals), like GROUPING SETS ((), (status), (route), …). That layout
// answers, exactly:
// - every panel without a filter (a breakdown or top list from its own column's rows, the time
//   series and latency from the totals);
// - a filter on ONE dimension column that is not hour-only (status >= 500, rate_limited = true…): the time series, the
//   counts of that column and every sum, because the rows of that column's dimension partition all
//   rows by its value, so the same WHERE selects exactly the matching rows' aggregates.
// Latency percentiles come from the totals' histogram: `duration_bucket` k ≥ 1 counts durations in
// [2^((k−1)/4), 2^(k/4)) ms, 0 those under 1 ms, 81 those from 2^20 ms (about 17.5 min) up.
// An estimate is within one bucket of the true value: relative error below 2^(1/4) − 1 (18.9 %)
// plus 1 ms (lib/datasets/storage/rollups.ts percentileFromHistogram; tests/unit/query-rollups.test.ts).
//
// Hour rows make a 30-day dashboard read 720 buckets instead of 43,200; minute rows cover the
// whole minutes at the edges of a range that does not start or end on the hour, and the rows
// themselves, aggregated alike, the partial minutes of a range given to the second (rollupRowsSql):
// any range is answered exactly as the rows would, not only whole minutes.
//
// The minute grain keeps the totals (one row per minute: the duration histogram is kept per hour)
// and the low-cardinality dimensions only. High-cardinality dimensions (a rollup's `hourOnly`) are
// kept per hour, each hour's list capped at `topPerHour` values of the written batch, the rest
// summed into one grain 'other' row. For them the exactness above does not hold: a top list read
// from capped hours is approximate once an 'other' row in its range counts a left-out row (the
// dashboard marks the panel `approximate`; counts are then lower bounds), and a filter or series
// condition on them reads the rows; their partial hours at a range's edges come from the rows.
//
// Text values are kept to their first ROLLUP_TEXT_MAX characters (an index entry has a size limit);
// longer values group by that prefix.

export const ROLLUP_TEXT_MAX = 500
export const DURATION_STEPS_PER_DOUBLING = 4
export const DURATION_BUCKET_OVERFLOW = 81
/** Relative error bound of a percentile read from the histogram (plus 1 ms below the first bucket). */
export const PERCENTILE_TOLERANCE = 2 ** (1 / DURATION_STEPS_PER_DOUBLING) - 1

/**
 * What the kit writes to: a dataset's definition, its table, its rollup table and the columns a
 * replayed row conflicts on (it is skipped, not counted twice). Each dataset's folder declares its
 * own (lib/datasets/<dataset>/store.ts); lib/datasets/registry.ts lists them.
 */
export interface StoredDataset<T extends PgTable = PgTable> {
  definition: DatasetDef
  rows: T
  rollup: PgTable
  conflict: string[]
}

export interface RollupSpec {
  dataset: DatasetDef
  /** The rollup table. */
  table: string
  dimensions: string[]
  latency: { column: string; errorStatusColumn: string } | null
  /** Columns summed by time-series panels (stored under the same name). */
  sums: string[]
  /** Dimensions kept at the hour grain only, capped at `topPerHour` values per hour. */
  hourOnly: string[]
  topPerHour: number
}

/** Default cap of an hour-only dimension's list per hour. */
export const ROLLUP_TOP_PER_HOUR = 50

export function rollupSpec(dataset: DatasetDef): RollupSpec {
  const { hourOnly = [], topPerHour = ROLLUP_TOP_PER_HOUR, ...rest } = dataset.rollup
  return { dataset, table: `${dataset.table}_rollup`, ...rest, hourOnly, topPerHour }
}

const id = (name: string) => sql.identifier(name)
const list = (names: string[]) => sql.join(names.map(id), sql`, `)

function keyColumns(spec: RollupSpec): string[] {
  return ['dimension', 'grain', 'bucket', ...spec.dimensions, ...(spec.latency ? ['duration_bucket'] : [])]
}

function measures(spec: RollupSpec): string[] {
  return ['rows', ...(spec.latency ? ['server_errors', 'client_errors'] : []), ...spec.sums]
}

/** Columns of the dataset's rows that its rollup reads. */
function sourceColumns(spec: RollupSpec): string[] {
  const d = spec.dataset
  return [...new Set([d.timeColumn, ...spec.dimensions, ...(spec.latency ? [spec.latency.column, spec.latency.errorStatusColumn] : []), ...spec.sums])]
}

function durationBucketSql(column: string): SQL {
  const c = id(column)
  return sql`CASE WHEN ${c} < 1 THEN 0 ELSE least(${sql.raw(String(DURATION_BUCKET_OVERFLOW))}, 1 + floor(${sql.raw(String(DURATION_STEPS_PER_DOUBLING))} * ln(${c}) / ln(2))) END::smallint`
}

/**
 * `"minutes" AS (…), "rolled" AS (INSERT … ON CONFLICT … DO UPDATE)`: the rollup of the rows of
 * `source` (a relation with the dataset's columns) added to the rollup table. Deltas are applied
 * in key order, so concurrent writers lock rollup rows in the same order (byte order for text:
 * any total order will do, and "C" compares fastest).
 */
function rollupCtes(spec: RollupSpec, source: SQL, into?: string): SQL {
  const text = new Set(spec.dataset.columns.filter((c) => c.type === 'text').map((c) => c.name))
  const dims = spec.dimensions
  const inner = [
    sql`${id(spec.dataset.timeColumn)} AS "t"`,
    ...dims.map((d) => (text.has(d) ? sql`left(${id(d)}, ${sql.raw(String(ROLLUP_TEXT_MAX))}) AS ${id(d)}` : id(d))),
    ...(spec.latency ? [sql`${durationBucketSql(spec.latency.column)} AS "duration_bucket"`] : []),
    ...(spec.latency && !dims.includes(spec.latency.errorStatusColumn) ? [id(spec.latency.errorStatusColumn)] : []),
    ...spec.sums.map(id),
  ]
  const grouped = [...dims, ...(spec.latency ? ['duration_bucket'] : [])]
  const dimensionName = sql`CASE ${sql.join(
    dims.map((d) => sql`WHEN GROUPING(${id(d)}) = 0 THEN ${sql.raw(`'${d}'`)}`),
    sql` `,
  )} ELSE '' END`
  const status = spec.latency ? id(spec.latency.errorStatusColumn) : null
  const aggregates = [
    sql`count(*) AS "rows"`,
    ...(status
      ? [sql`count(*) FILTER (WHERE ${status} >= 500) AS "server_errors"`, sql`count(*) FILTER (WHERE ${status} BETWEEN 400 AND 499) AS "client_errors"`]
      : []),
    ...spec.sums.map((s) => sql`coalesce(sum(${id(s)}), 0) AS ${id(s)}`),
  ]
  const sets = [spec.latency ? sql`("duration_bucket")` : sql`()`, ...dims.map((d) => sql`(${id(d)})`)]
  const key = keyColumns(spec)
  const m = measures(spec)
  const table = id(into ?? spec.table)
  // Into an empty table of its own (a day rebuilt whole): every key is new, so neither the sort
  // nor the conflict check is needed.
  const apply = into
    ? sql``
    : sql` ORDER BY ${sql.join(
        key.map((k) => (k === 'dimension' || k === 'grain' || text.has(k) ? sql`${id(k)} COLLATE "C"` : id(k))),
        sql`, `,
      )}
  ON CONFLICT (${list(key)}) DO UPDATE SET ${sql.join(
    m.map((c) => sql`${id(c)} = ${table}.${id(c)} + excluded.${id(c)}`),
    sql`, `,
  )}`
  const hourOnly = spec.hourOnly.filter((d) => dims.includes(d))
  const names = (xs: string[]) =>
    sql.join(
      xs.map((x) => sql.raw(`'${x}'`)),
      sql`, `,
    )
  // Minute rows for the totals and the low-cardinality dimensions; hour rows for all, an
  // hour-only dimension's capped at its topPerHour largest values of the batch, the rest summed
  // into one 'other' row per (dimension, hour) so a reader knows the list left values out.
  const minuteRows = hourOnly.length ? sql` WHERE "dimension" NOT IN (${names(hourOnly)})` : sql``
  const capped = hourOnly.length ? sql` WHERE "rank" <= ${sql.raw(String(spec.topPerHour))} OR "dimension" NOT IN (${names(hourOnly)})` : sql``
  const other = hourOnly.length
    ? sql`
    UNION ALL
    SELECT "dimension", 'other', "bucket", ${sql.join(
      grouped.map(() => sql`NULL`),
      sql`, `,
    )}, ${sql.join(
      m.map((c) => sql`sum(${id(c)})`),
      sql`, `,
    )} FROM "hours" WHERE "rank" > ${sql.raw(String(spec.topPerHour))} AND "dimension" IN (${names(hourOnly)}) GROUP BY 1, 3`
    : sql``
  // The duration histogram is kept per hour: the minute totals are one row per minute.
  const minuteDeltas = spec.latency
    ? sql`SELECT "dimension", 'minute' AS "grain", "bucket", ${list(dims)}, NULL::smallint AS "duration_bucket", ${sql.join(
        m.map((c) => sql`sum(${id(c)}) AS ${id(c)}`),
        sql`, `,
      )} FROM "minutes"${minuteRows} GROUP BY 1, 3, ${list(dims)}`
    : sql`SELECT "dimension", 'minute' AS "grain", "bucket", ${list(grouped)}, ${list(m)} FROM "minutes"${minuteRows}`
  const orderKeys = grouped.map((k) => (text.has(k) ? sql`${id(k)} COLLATE "C"` : id(k)))
  return sql`"minutes" AS (
  SELECT date_trunc('minute', "t", 'UTC') AS "bucket", ${dimensionName} AS "dimension", ${list(grouped)}, ${sql.join(aggregates, sql`, `)}
  FROM (SELECT ${sql.join(inner, sql`, `)} FROM ${source}) AS "batch"
  GROUP BY 1, GROUPING SETS (${sql.join(sets, sql`, `)})
), "hours" AS (
  SELECT "dimension", date_trunc('hour', "bucket", 'UTC') AS "bucket", ${list(grouped)}, ${sql.join(
    m.map((c) => sql`sum(${id(c)}) AS ${id(c)}`),
    sql`, `,
  )},
    row_number() OVER (PARTITION BY "dimension", date_trunc('hour', "bucket", 'UTC') ORDER BY sum("rows") DESC, ${sql.join(orderKeys, sql`, `)}) AS "rank"
  FROM "minutes" GROUP BY 1, 2, ${list(grouped)}
), "rolled" AS (
  INSERT INTO ${table} (${list(key)}, ${list(m)})
  SELECT * FROM (
    ${minuteDeltas}
    UNION ALL
    SELECT "dimension", 'hour', "bucket", ${list(grouped)}, ${list(m)} FROM "hours"${capped}${other}
  ) AS "deltas"${apply}
)`
}

/** A row keyed by the table's property names; values as its insert type has them (jsonb values as objects). */
export type InsertRow = Record<string, unknown>

export interface InsertColumn {
  /** Property name in the rows (the Drizzle table's key). */
  prop: string
  /** Column name in the database. */
  name: string
  /** SQL type, as the table declares it. */
  type: string
}

/** The columns of a dataset's table that `row` sets, in table order. */
export function insertColumns(table: PgTable, row: InsertRow): InsertColumn[] {
  return Object.entries(getTableColumns(table))
    .filter(([prop]) => prop in row)
    .map(([prop, column]) => ({ prop, name: column.name, type: column.getSQLType() }))
}

/**
 * One statement: `INSERT INTO <dataset table> (names) SELECT names FROM <source> ON CONFLICT
 * (conflict) DO NOTHING`, whose inserted rows (RETURNING, so never the skipped ones) are added to
 * the rollup by the same statement. It answers one row, `inserted`.
 */
export function insertSelectWithRollupSql(dataset: DatasetDef, names: string[], source: SQL, conflict: string[]): SQL {
  const spec = rollupSpec(dataset)
  return sql`WITH "inserted" AS (
  INSERT INTO ${id(spec.dataset.table)} (${list(names)})
  SELECT ${list(names)} FROM ${source}
  ON CONFLICT (${list(conflict)}) DO NOTHING
  RETURNING ${list(sourceColumns(spec))}
), ${rollupCtes(spec, sql`"inserted"`)}
SELECT count(*)::int AS "inserted" FROM "inserted"`
}

/**
 * Inserts rows (keyed by the table's property names, all of one shape) and adds them to the
 * dataset's rollup, in ONE statement: rows skipped by `ON CONFLICT (conflict) DO NOTHING` (a replay)
 * are not counted. Returns how many rows were inserted. The rows travel as one JSON parameter; the
 * staging path (lib/datasets/storage/bulk-insert.ts) uses this where it cannot COPY.
 */
export async function insertWithRollup(db: Pick<Db, 'execute'>, dataset: StoredDataset, rows: InsertRow[]): Promise<number> {
  if (rows.length === 0) return 0
  const columns = insertColumns(dataset.rows, rows[0])
  const json = JSON.stringify(rows.map((r) => Object.fromEntries(columns.map((c) => [c.name, r[c.prop] ?? null]))))
  const recordType = sql.join(
    columns.map((c) => sql`${id(c.name)} ${sql.raw(c.type)}`),
    sql`, `,
  )
  const source = sql`json_to_recordset(${json}::json) AS "r"(${recordType})`
  const result = await db.execute(
    insertSelectWithRollupSql(
      dataset.definition,
      columns.map((c) => c.name),
      source,
      dataset.conflict,
    ),
  )
  return Number(rowsOf<{ inserted: number | string }>(result)[0].inserted)
}

/**
 * Statements that rebuild a dataset's rollup from its rows (after bulk loads that bypass
 * insertWithRollup, such as demo seeding). Run them in one transaction; the SHARE lock keeps
 * writers out until the rollup is whole again.
 */
export function rebuildRollupStatements(dataset: DatasetDef): SQL[] {
  const spec = rollupSpec(dataset)
  return [
    sql`LOCK TABLE ${id(spec.dataset.table)} IN SHARE MODE`,
    sql`TRUNCATE ${id(spec.table)}`,
    sql`WITH ${rollupCtes(spec, sql`${id(spec.dataset.table)}`)} SELECT count(*) AS "minutes" FROM "minutes"`,
  ]
}

/**
 * One statement that inserts the rollup of `source` (rows of the dataset) into `into`, an empty
 * table shaped like the rollup (no ON CONFLICT: the keys of one aggregation are distinct). Used to
 * build a day's rollup partition before attaching it (lib/datasets/seed.ts).
 */
export function rollupIntoSql(dataset: DatasetDef, source: SQL, into: string): SQL {
  return sql`WITH ${rollupCtes(rollupSpec(dataset), source, into)} SELECT count(*) AS "minutes" FROM "minutes"`
}

export async function rebuildRollup(db: Db, dataset: DatasetDef): Promise<void> {
  await db.transaction(async (tx) => {
    for (const statement of rebuildRollupStatements(dataset)) await tx.execute(statement)
  })
}

// Reading --------------------------------------------------------------------------------------

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000

const floorTo = (d: Date, step: number) => new Date(Math.floor(d.getTime() / step) * step)
const ceilTo = (d: Date, step: number) => new Date(Math.ceil(d.getTime() / step) * step)

/** Whether a range falls on whole minutes at both ends (then no row is read at its edges). */
export function rollupAligned(from: Date, to: Date): boolean {
  return from.getTime() % MINUTE_MS === 0 && to.getTime() % MINUTE_MS === 0
}

/** Whether `dimension` is kept at the hour grain only (and capped per hour). */
export function rollupHourOnly(spec: RollupSpec, dimension: string): boolean {
  return dimension !== '' && spec.hourOnly.includes(dimension)
}

/**
 * The rollup dimension that answers `panel` under a filter on `filterColumns`, or null when only
 * the rows can (see the top of this file). A filter or series condition on an hour-only
 * dimension needs the rows: its capped lists no longer partition the rows exactly.
 */
export function rollupDimensionFor(spec: RollupSpec, panel: PanelDef | 'count', filterColumns: string[]): string | null {
  const filtered = [...new Set(filterColumns)]
  if (filtered.length > 1 || filtered.some((c) => !spec.dimensions.includes(c) || spec.hourOnly.includes(c))) return null
  const on = filtered[0]
  if (panel === 'count') return on ?? ''
  switch (panel.kind) {
    case 'timeseries': {
      // A series counting the rows of one value reads that column's dimension, whose rows also
      // sum to the totals; a filter on any other column then needs the rows.
      const conditions = [...new Set(panel.series.flatMap((s) => (s.aggregate === 'count' && s.where ? [s.where.column] : [])))]
      if (conditions.length === 0) return on ?? ''
      if (
        conditions.length > 1 ||
        (on !== undefined && on !== conditions[0]) ||
        !spec.dimensions.includes(conditions[0]) ||
        spec.hourOnly.includes(conditions[0])
      )
        return null
      return conditions[0]
    }
    case 'latency':
      return on === undefined && spec.latency ? '' : null
    case 'breakdown':
    case 'top':
      return spec.dimensions.includes(panel.column) && (on === undefined || on === panel.column) ? panel.column : null
  }
}

/** Output columns of rollupRowsSql, in order. */
function readColumns(spec: RollupSpec): string[] {
  return [...keyColumns(spec), ...measures(spec)]
}

/**
 * The rows of [a, b) aggregated as the rollup rows of `dimension` would be, per minute: the
 * partial minutes (or hours) at the edges of a range, which no rollup row covers exactly.
 */
function edgeRowsSql(spec: RollupSpec, dimension: string, a: Date, b: Date): SQL {
  const types = Object.fromEntries(Object.values(getTableColumns(rollupTable(spec.dataset))).map((c) => [c.name, c.getSQLType()]))
  const text = new Set(spec.dataset.columns.filter((c) => c.type === 'text').map((c) => c.name))
  const time = id(spec.dataset.timeColumn)
  const nullOf = (c: string) => sql`NULL::${sql.raw(types[c])}`
  const groupBy: number[] = [3]
  const select: SQL[] = [sql`${dimension}::text`, sql`'row'::text`, sql`date_trunc('minute', ${time}, 'UTC')`]
  for (const d of spec.dimensions) {
    if (d === dimension) {
      groupBy.push(select.length + 1)
      select.push(text.has(d) ? sql`left(${id(d)}, ${sql.raw(String(ROLLUP_TEXT_MAX))})` : sql`${id(d)}`)
    } else select.push(nullOf(d))
  }
  if (spec.latency) {
    if (dimension === '') {
      groupBy.push(select.length + 1)
      select.push(durationBucketSql(spec.latency.column))
    } else select.push(nullOf('duration_bucket'))
    const status = id(spec.latency.errorStatusColumn)
    select.push(sql`count(*)`, sql`count(*) FILTER (WHERE ${status} >= 500)`, sql`count(*) FILTER (WHERE ${status} BETWEEN 400 AND 499)`)
  } else select.push(sql`count(*)`)
  for (const c of spec.sums) select.push(sql`coalesce(sum(${id(c)}), 0)::bigint`)
  // Named as the rollup's columns: this part may come first (or alone) in the union.
  const named = select.map((expression, i) => sql`${expression} AS ${id(readColumns(spec)[i])}`)
  return sql`SELECT ${sql.join(named, sql`, `)} FROM ${id(spec.dataset.table)} WHERE ${time} >= ${a.toISOString()}::timestamptz AND ${time} < ${b.toISOString()}::timestamptz GROUP BY ${sql.raw(groupBy.join(', '))}`
}

/**
 * The rollup rows of one dimension covering [from, to), at any precision: hour rows for the whole
 * hours inside it (when `hours`), minute rows for the whole minutes left, and the rows themselves,
 * aggregated alike, for the partial minutes at its edges (grain 'row'). An hour-only dimension has
 * no minute rows: its edges are read from the rows up to the whole hours. `hours` false (a time
 * series whose buckets are not whole hours) needs a dimension with minute rows; `histogram` (the
 * totals' duration histogram, kept per hour) reads the totals as an hour-only dimension.
 */
export function rollupRowsSql(spec: RollupSpec, dimension: string, from: Date, to: Date, hours: boolean, histogram = false): SQL {
  const table = id(spec.table)
  // The table's columns are readColumns in order (lib/datasets/storage/columns.ts), which the
  // edge rows' part is aligned to.
  const part = (grain: 'minute' | 'hour', a: Date, b: Date) =>
    sql`SELECT * FROM ${table} WHERE "dimension" = ${dimension} AND "grain" = ${grain} AND "bucket" >= ${a.toISOString()}::timestamptz AND "bucket" < ${b.toISOString()}::timestamptz`
  const parts: SQL[] = []
  const edges: Array<[Date, Date]> = []
  const hourOnly = histogram || rollupHourOnly(spec, dimension)
  const inner: [Date, Date] = hourOnly ? [ceilTo(from, HOUR_MS), floorTo(to, HOUR_MS)] : [ceilTo(from, MINUTE_MS), floorTo(to, MINUTE_MS)]
  if (inner[0] >= inner[1]) edges.push([from, to])
  else {
    if (from < inner[0]) edges.push([from, inner[0]])
    if (inner[1] < to) edges.push([inner[1], to])
    const [hourFrom, hourTo] = hourOnly ? inner : [ceilTo(inner[0], HOUR_MS), floorTo(inner[1], HOUR_MS)]
    if (!hours || hourFrom >= hourTo) parts.push(part('minute', inner[0], inner[1]))
    else {
      parts.push(part('hour', hourFrom, hourTo))
      if (inner[0] < hourFrom) parts.push(part('minute', inner[0], hourFrom))
      if (hourTo < inner[1]) parts.push(part('minute', hourTo, inner[1]))
    }
  }
  for (const [a, b] of edges) parts.push(edgeRowsSql(spec, dimension, a, b))
  return sql`(${sql.join(parts, sql` UNION ALL `)}) AS "rollup"`
}

/**
 * How many rows an hour-only dimension's capped lists left out over the whole hours of [from, to)
 * (the 'other' rows): above 0, a top list read from them is approximate.
 */
export function rollupLeftOutSql(spec: RollupSpec, dimension: string, from: Date, to: Date): SQL {
  return sql`SELECT coalesce(sum("rows"), 0) AS "left_out" FROM ${id(spec.table)} WHERE "dimension" = ${dimension} AND "grain" = 'other' AND "bucket" >= ${ceilTo(from, HOUR_MS).toISOString()}::timestamptz AND "bucket" < ${floorTo(to, HOUR_MS).toISOString()}::timestamptz`
}

/** The hour-only dimensions among `dimensions` whose capped lists left rows out over the whole hours of [from, to). */
export function rollupLeftOutByDimensionSql(spec: RollupSpec, dimensions: string[], from: Date, to: Date): SQL {
  return sql`SELECT "dimension", sum("rows") AS "left_out" FROM ${id(spec.table)} WHERE "grain" = 'other' AND "dimension" IN (${sql.join(
    dimensions.map((d) => sql`${d}`),
    sql`, `,
  )}) AND "bucket" >= ${ceilTo(from, HOUR_MS).toISOString()}::timestamptz AND "bucket" < ${floorTo(to, HOUR_MS).toISOString()}::timestamptz GROUP BY 1 HAVING sum("rows") > 0`
}

/** Upper bound of duration bucket k (ms); Infinity for the overflow bucket. */
function bucketBounds(k: number): [number, number] {
  if (k <= 0) return [0, 1]
  if (k >= DURATION_BUCKET_OVERFLOW) return [2 ** ((DURATION_BUCKET_OVERFLOW - 1) / DURATION_STEPS_PER_DOUBLING), Infinity]
  return [2 ** ((k - 1) / DURATION_STEPS_PER_DOUBLING), 2 ** (k / DURATION_STEPS_PER_DOUBLING)]
}

/**
 * The p-quantile (0–1) of a duration histogram, interpolated as percentile_cont does between the
 * two order statistics around rank p·(n−1); each order statistic is placed evenly inside its bucket.
 */
export function percentileFromHistogram(histogram: Array<{ bucket: number; rows: number }>, p: number): number | null {
  const buckets = [...histogram].filter((h) => h.rows > 0).sort((a, b) => a.bucket - b.bucket)
  const n = buckets.reduce((sum, h) => sum + h.rows, 0)
  if (n === 0) return null
  const orderStatistic = (k: number) => {
    let before = 0
    for (const h of buckets) {
      if (k < before + h.rows) {
        const [lo, hi] = bucketBounds(h.bucket)
        return hi === Infinity ? lo : lo + ((hi - lo) * (k - before + 0.5)) / h.rows
      }
      before += h.rows
    }
    return bucketBounds(buckets[buckets.length - 1].bucket)[0]
  }
  const rank = p * (n - 1)
  const lo = Math.floor(rank)
  const low = orderStatistic(lo)
  return rank === lo ? low : low + (rank - lo) * (orderStatistic(lo + 1) - low)
}

import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { AppError } from '@/lib/errors'
import { parseTimestamp } from '@/lib/db/rows'
import { getDataset, type DatasetDef, type DatasetId } from '@/lib/datasets/catalog'
import { rollupAligned, rollupDimensionFor, rollupRowsSql, rollupSpec } from '@/lib/datasets/storage/rollups'
import { checkFilter } from '@/lib/query/filter'
import { GROUP_SORTS, GroupByRequest, resolveRange, type GroupByResult } from '@/lib/query/schemas'
import { columnValue, exactRollupColumns, parse, readOnly, statement, whereSql, type ExecOptions } from '@/lib/query/service'
import { groupableColumns } from '@/lib/view/group-state'
import { UTC, zoneOffsetMinutes } from '@/lib/view/time'

// Group by: the rows of a range and filter grouped by one or two columns, with the measures the
// dataset has: a count always, an error count and rate where something counts as an error, p50/p95
// of its duration column, sums of its byte columns. One statement, ordered and limited in the
// database (LIMIT ≤ 200 groups), under the read-only role and statement timeout.
//
// One column that the rollup groups by, under a filter the rollup can answer (none, or on that
// column) over a whole-minute range, is read from the rollup (a column kept per hour only, when its
// capped lists left nothing out in the range): count, and the error count and sums
// the rollup keeps. Percentiles per group are not in the rollup (its histogram is of the totals),
// so they are listed as omitted and read from the rows on request (`rows: true`) or when the sort
// asks for them.
//
// With `every` (hour or day), each group is split per period: `date_trunc(every, time, timeZone)`
// is the first key, periods come in ascending order and the sort orders the groups within one, and
// the limit applies to the (period, group) rows. The rollup's buckets are UTC-aligned minutes and
// hours, so it answers only where every bucket lies within one period: in UTC, or in a zone whose
// offset is a whole number of hours over the whole range; otherwise the rows do.
//
// Each group says when it was first and last seen in the range: to the millisecond from the rows,
// to the minute or hour of its rollup bucket otherwise (the result says which).

export interface GroupMeasures {
  /** What an error is here, as trusted SQL over the dataset's columns, and the rollup column counting it (if any). */
  errors?: { label: string; condition: string; rollupColumn?: string }
  duration?: string
  sums?: string[]
}

export const GROUP_MEASURES: Record<DatasetId, GroupMeasures> = {
  requests: { errors: { label: 'Errors (5xx)', condition: '"status" >= 500', rollupColumn: 'server_errors' }, duration: 'duration_ms' },
  dns: { errors: { label: 'SERVFAIL', condition: '"rcode" = 2' }, duration: 'response_time_ms' },
  http: { errors: { label: 'Errors (5xx)', condition: '"http_status_code" >= 500' } },
  network: {},
  sessions: { sums: ['bytes_sent', 'bytes_received'] },
  job_runs: { errors: { label: 'Failed', condition: `"outcome" = 'failed'` }, duration: 'duration_ms' },
  domain_checks: { errors: { label: 'Failing', condition: `"status" = 'fail'` } },
  alerts: {},
}

const id = (name: string) => sql.identifier(name)

/** A first/last-seen time and its precision: a rollup bucket's grain ('row' buckets are minutes at the range's edges), or exact from the rows. */
function seenAt(value: unknown, grain: unknown): GroupByResult['groups'][number]['firstSeen'] {
  if (value === null || value === undefined) return null
  const at = parseTimestamp(value).toISOString()
  return { at, within: grain === null ? 'exact' : grain === 'hour' ? 'hour' : 'minute' }
}

/** The sort keys a dataset's groups may be sorted by. */
export function groupSorts(dataset: DatasetDef): string[] {
  const m = GROUP_MEASURES[dataset.id as DatasetId]
  return (GROUP_SORTS as readonly string[])
    .filter((s) => (s === 'errors' || s === 'error_rate' ? !!m.errors : s === 'p50' || s === 'p95' ? !!m.duration : true))
    .concat(m.sums ?? [])
}

const HOUR_MS = 3_600_000

/** Whether `zone` is a whole number of hours from UTC throughout [from, to) (checked hourly and at the end; offsets last longer than an hour). */
function wholeHourZone(zone: string, from: Date, to: Date): boolean {
  if (zone === UTC) return true
  for (let t = from.getTime(); ; t = Math.min(t + HOUR_MS, to.getTime())) {
    if (zoneOffsetMinutes(t, zone) % 60 !== 0) return false
    if (t >= to.getTime()) return true
  }
}

export async function runGroupBy(input: GroupByRequest, opts: ExecOptions = {}): Promise<GroupByResult> {
  const req = parse(GroupByRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const allowed = groupableColumns(dataset)
  for (const column of req.by)
    if (!allowed.includes(column))
      throw new AppError('invalid_input', `by: ${JSON.stringify(column)} is not a column ${dataset.id} can be grouped by (${allowed.join(', ')})`)
  if (new Set(req.by).size !== req.by.length) throw new AppError('invalid_input', 'by: the same column twice')
  const sorts = groupSorts(dataset)
  if (!sorts.includes(req.sort))
    throw new AppError('invalid_input', `sort: ${JSON.stringify(req.sort)} is not a measure of ${dataset.id} (${sorts.join(', ')})`)
  const filter = await checkFilter(req.filter, dataset)
  const m = GROUP_MEASURES[req.dataset]
  const spec = rollupSpec(dataset)

  // The rollup answers when one rollup column is grouped, the filter allows it, and the sort is not a percentile.
  // An hour-only column only when its capped per-hour lists left nothing out over the range.
  const eligible =
    !req.rows &&
    opts.rollups !== false &&
    req.by.length === 1 &&
    req.sort !== 'p50' &&
    req.sort !== 'p95' &&
    rollupAligned(from, to) &&
    (!req.every || wholeHourZone(req.timeZone, from, to))
  const dimension =
    eligible && (await exactRollupColumns(spec, req.by, from, to, opts)).has(req.by[0])
      ? rollupDimensionFor(spec, { id: 'group', kind: 'top', title: '', column: req.by[0], limit: req.limit }, filter.columns)
      : null
  const fromRollup = dimension !== null
  const rollupErrors = fromRollup && m.errors?.rollupColumn && spec.latency ? m.errors.rollupColumn : null
  const sums = (m.sums ?? []).filter((s) => !fromRollup || spec.sums.includes(s))
  const errorsAvailable = !!m.errors && (!fromRollup || rollupErrors !== null)
  const omitted = [
    ...(m.duration && fromRollup ? ['p50', 'p95'] : []),
    ...(m.errors && !errorsAvailable ? ['errors', 'error_rate'] : []),
    ...(m.sums ?? []).filter((s) => !sums.includes(s)),
  ]
  // A sort on a measure the rollup does not keep reads the rows instead.
  if (fromRollup && omitted.includes(req.sort)) return runGroupBy({ ...input, rows: true }, opts)

  // The period: a literal unit (validated) and the zone as a parameter.
  const periodOf = (time: SQL) => sql`date_trunc(${sql.raw(`'${req.every}'`)}, ${time}, ${req.timeZone})`
  const period = req.every ? [sql`${periodOf(fromRollup ? sql`"bucket"` : sql`${id(dataset.timeColumn)}`)} AS "period"`] : []
  const keys = [...period, ...req.by.map((c, i) => sql`${id(c)} AS ${id(`g${i}`)}`)]
  const count = fromRollup ? sql`sum("rows")::bigint` : sql`count(*)`
  const measures: SQL[] = [sql`${count} AS "count"`]
  if (errorsAvailable && m.errors) {
    const errors = fromRollup ? sql`sum(${id(rollupErrors!)})::bigint` : sql`count(*) FILTER (WHERE ${sql.raw(m.errors.condition)})`
    measures.push(sql`${errors} AS "errors"`, sql`(${errors})::float8 / nullif(${count}, 0) AS "error_rate"`)
  }
  if (m.duration && !fromRollup)
    measures.push(
      sql`percentile_cont(0.5) WITHIN GROUP (ORDER BY ${id(m.duration)}) AS "p50"`,
      sql`percentile_cont(0.95) WITHIN GROUP (ORDER BY ${id(m.duration)}) AS "p95"`,
    )
  for (const s of sums) measures.push(sql`coalesce(sum(${id(s)}), 0)::bigint AS ${id(s)}`)
  // First and last seen: exact from the rows; from the rollup, the bucket holding the first and last row and its grain.
  if (fromRollup)
    measures.push(
      sql`min("bucket") AS "first_seen"`,
      sql`(array_agg("grain" ORDER BY "bucket"))[1] AS "first_grain"`,
      sql`max("bucket") AS "last_seen"`,
      sql`(array_agg("grain" ORDER BY "bucket" DESC))[1] AS "last_grain"`,
    )
  else measures.push(sql`min(${id(dataset.timeColumn)}) AS "first_seen"`, sql`max(${id(dataset.timeColumn)}) AS "last_seen"`)
  measures.push(sql`(count(*) OVER ())::bigint AS "_groups"`, sql`(sum(${count}) OVER ())::bigint AS "_total"`)

  const relation = fromRollup
    ? sql`${rollupRowsSql(spec, dimension, from, to, true)}${filter.sql ? sql` WHERE (${sql.raw(filter.sql)})` : sql``}`
    : sql`${id(dataset.table)} WHERE ${whereSql(dataset, from, to, filter.sql)}`
  const dir = sql.raw(req.order === 'desc' ? 'DESC' : 'ASC')
  const groupKeys = req.by.map((_, i) => id(`g${i}`))
  const sorted =
    req.sort === 'value'
      ? sql.join(
          groupKeys.map((k) => sql`${k} ${dir} NULLS LAST`),
          sql`, `,
        )
      : sql`${id(req.sort)} ${dir} NULLS LAST, ${sql.join(
          groupKeys.map((k) => sql`${k} NULLS LAST`),
          sql`, `,
        )}`
  const order = req.every ? sql`"period" ASC, ${sorted}` : sorted
  const query = sql`SELECT ${sql.join([...keys, ...measures], sql`, `)} FROM ${relation} GROUP BY ${sql.join(
    keys.map((_, i) => sql.raw(String(i + 1))),
    sql`, `,
  )} ORDER BY ${order} LIMIT ${req.limit}`

  const started = performance.now()
  const rows = await readOnly(opts, (session) => session.execute(query))
  const elapsedMs = Math.round((performance.now() - started) * 100) / 100
  const types = req.by.map((c) => dataset.columns.find((d) => d.name === c)!.type)
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))
  const ms = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100)
  return {
    dataset: req.dataset,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    by: req.by,
    every: req.every ?? null,
    timeZone: req.timeZone,
    source: fromRollup ? 'rollup' : 'rows',
    measures: { errors: m.errors ? { label: m.errors.label, condition: m.errors.condition } : null, duration: m.duration ?? null, sums: m.sums ?? [] },
    omitted,
    groups: rows.map((r) => ({
      values: [...(req.every ? [parseTimestamp(r.period).toISOString()] : []), ...req.by.map((_, i) => columnValue(types[i], r[`g${i}`]))],
      count: Number(r.count),
      errors: errorsAvailable ? num(r.errors) : null,
      errorRate: errorsAvailable ? num(r.error_rate) : null,
      p50: m.duration && !fromRollup ? ms(r.p50) : null,
      p95: m.duration && !fromRollup ? ms(r.p95) : null,
      sums: Object.fromEntries(sums.map((s) => [s, Number(r[s] ?? 0)])),
      firstSeen: seenAt(r.first_seen, fromRollup ? r.first_grain : null),
      lastSeen: seenAt(r.last_seen, fromRollup ? r.last_grain : null),
    })),
    groupCount: Number(rows[0]?._groups ?? 0),
    total: Number(rows[0]?._total ?? 0),
    sort: req.sort,
    order: req.order,
    limit: req.limit,
    sql: statement(query),
    elapsedMs,
  }
}

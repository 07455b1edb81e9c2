import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { z } from 'zod'
import { config } from '@/lib/config'
import { getReadyDatabase, type Database, type ReadOnlySession, type ResultRow } from '@/lib/db/client'
import { replicaFailure } from '@/lib/db/replica'
import { parseTimestamp, rowsOf } from '@/lib/db/rows'
import { AppError, codedCause, describeZodError, isConnectionFailure } from '@/lib/errors'
import { DATASETS, DATASET_IDS, getDataset, type ColumnType, type DatasetDef, type DatasetId, type PanelDef } from '@/lib/datasets/catalog'
import { log } from '@/lib/log'
import { checkFilter, type CheckedFilter } from '@/lib/query/filter'
import { currentQueryIdentity, withStatementSlot } from '@/lib/query/concurrency'
import { retentionDays } from '@/lib/datasets/partitions'
import {
  percentileFromHistogram,
  rollupDimensionFor,
  rollupHourOnly,
  rollupLeftOutByDimensionSql,
  rollupLeftOutSql,
  rollupRowsSql,
  rollupSpec,
  type RollupSpec,
} from '@/lib/datasets/storage/rollups'
import {
  DashboardRequest,
  QueryRequest,
  resolveRange,
  type DashboardPanel,
  type DashboardResult,
  type DatasetList,
  type QueryResult,
} from '@/lib/query/schemas'

// The query application's data side: runs a checked filter over one dataset's time range and
// builds dashboard aggregations. Every statement runs read-only, as the SELECT-only role query_ro,
// with a statement timeout (lib/db/client.ts readOnly), so no filter can write or hold the database.
//
// A page of rows and its count run concurrently. Keyset paging ("next page": rows before the last
// one's (time, id)) costs the same on page 500 as on page 1; offsets remain for jumps. Counts are
// exact up to QUERY_EXACT_COUNT_LIMIT, read from the rollup when the filter allows (exact at any
// size), and above the limit the planner's estimate, marked as one. Dashboard panels read the
// rollups whenever the filter allows it, the rows only for the partial minutes at a range's edges
// (lib/datasets/storage/rollups.ts), raw rows otherwise; each panel says which it read, and its SQL is the statement that ran.

export { DashboardRequest, QueryRequest, QueryResult, DashboardResult, DatasetList } from '@/lib/query/schemas'

const TOP_LIMIT = 10
const BREAKDOWN_LIMIT = 20
const MAX_BUCKETS = 200
const NICE_BUCKETS_S = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400]
/** Time-series buckets start at multiples of their size since the epoch (UTC), whatever the range. */
const EPOCH = '1970-01-01T00:00:00.000Z'

const dialect = new PgDialect()
const id = (name: string) => sql.identifier(name)

export interface ExecOptions {
  /** The database to use (tests); the process-wide one otherwise. */
  database?: Database
  /** Statement timeout; may only tighten QUERY_STATEMENT_TIMEOUT_MS. */
  timeoutMs?: number
  /** Exact-count limit; may only lower QUERY_EXACT_COUNT_LIMIT. */
  exactCountLimit?: number
  /** False: read raw rows even where a rollup could answer (tests compare the two). */
  rollups?: boolean
}

type Statement = QueryResult['sql']

// GET /query/api/datasets - the datasets with their columns, quick filters, panels and retention
export function listDatasets(): DatasetList {
  return {
    datasets: DATASET_IDS.map((id) => {
      const d = DATASETS[id]
      return {
        id,
        label: d.label,
        description: d.description,
        timeColumn: d.timeColumn,
        columns: d.columns,
        quickFilters: d.quickFilters,
        panels: d.panels,
        retentionDays: retentionDays(id),
        sortColumns: d.sortColumns,
      }
    }),
    maxRangeDays: config.QUERY_MAX_RANGE_DAYS,
    limits: {
      minLimit: 1,
      maxLimit: 500,
      defaultLimit: 100,
      statementTimeoutMs: config.QUERY_STATEMENT_TIMEOUT_MS,
      exactCountLimit: config.QUERY_EXACT_COUNT_LIMIT,
    },
  }
}

// POST /query/api/query - one page of rows and the count of all matching rows
export async function runQuery(input: QueryRequest, opts: ExecOptions = {}): Promise<QueryResult> {
  const req = parse(QueryRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = await checkFilter(req.filter, dataset)
  const where = whereSql(dataset, from, to, filter.sql)
  const time = id(dataset.timeColumn)
  const order = sortOrder(dataset, req.sort, req.order)
  if (req.cursor && !order.byTime)
    throw new AppError('invalid_input', `cursor: keyset pages follow the time column; sorted by ${order.column}, page with offset`)
  const after = req.cursor ? parseCursor(req.cursor) : null
  // The plain bound on the time column lets Postgres skip the day partitions past the cursor.
  const keyset = !after
    ? sql``
    : order.desc
      ? sql` AND ${time} <= ${after.time}::timestamptz AND (${time}, "id") < (${after.time}::timestamptz, ${after.id}::bigint)`
      : sql` AND ${time} >= ${after.time}::timestamptz AND (${time}, "id") > (${after.time}::timestamptz, ${after.id}::bigint)`
  const page = after ? sql`LIMIT ${req.limit}` : sql`LIMIT ${req.limit} OFFSET ${req.offset}`
  // "id" and the time in microseconds make each row's key (and the next page's cursor); they are not returned as columns.
  const rowsSql = sql`SELECT ${selectList(dataset)}, ${rowKeyColumns(dataset)} FROM ${id(dataset.table)} WHERE ${where}${keyset} ORDER BY ${order.sql} ${page}`

  const started = performance.now()
  const [rows, count] = await readOnly(opts, (session) =>
    Promise.all([session.execute(rowsSql), countMatching(session, { dataset, from, to, filter, where }, opts)]),
  )
  const last = rows.at(-1)
  const more = rows.length === req.limit && !(count.exact && req.offset + rows.length >= count.value)
  return {
    dataset: req.dataset,
    columns: dataset.columns.map((c) => c.name),
    rows: rows.map((r) => normaliseRow(dataset, r)),
    keys: rows.map(rowKey),
    count: count.value,
    countExact: count.exact,
    limit: req.limit,
    offset: req.offset,
    // Sorted by another column, a page continues by offset: a keyset over (column, time, id) would
    // need a cursor per column type and NULL handling, and the offset of a sorted index scan is cheap enough.
    nextCursor: more && last && order.byTime ? rowKey(last) : null,
    sort: { column: order.column, order: order.desc ? 'desc' : 'asc' },
    range: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    elapsedMs: round(performance.now() - started),
    sql: statement(rowsSql),
    countSql: statement(count.query),
    ...(count.estimate ? { estimateSql: statement(count.estimate) } : {}),
  }
}

/**
 * The ORDER BY of a page: `column DIR, time DIR, id DIR` (ties broken by time and id in the same
 * direction, so one index on (column) or (column, time) serves both directions). The column must be
 * one of the dataset's sortColumns, the indexed ones.
 */
export function sortOrder(
  dataset: DatasetDef,
  column: string | undefined,
  order: 'asc' | 'desc' = 'desc',
): { column: string; desc: boolean; byTime: boolean; sql: SQL } {
  const name = column ?? dataset.timeColumn
  if (!dataset.sortColumns.includes(name))
    throw new AppError(
      'invalid_input',
      `sort: ${JSON.stringify(name)} is not a sortable column of ${dataset.id}; sortable (indexed) columns: ${dataset.sortColumns.join(', ')}`,
    )
  const dir = order === 'desc' ? sql.raw('DESC') : sql.raw('ASC')
  const byTime = name === dataset.timeColumn
  const keys = [...(byTime ? [] : [id(name)]), id(dataset.timeColumn), id('id')]
  return {
    column: name,
    desc: order === 'desc',
    byTime,
    sql: sql.join(
      keys.map((k) => sql`${k} ${dir}`),
      sql`, `,
    ),
  }
}

interface Count {
  value: number
  exact: boolean
  /** The statement that counted (rollup sum or capped count). */
  query: SQL
  /** The planner estimate's statement, when the capped count reached the limit. */
  estimate?: SQL
}

/**
 * From the rollup when it can answer (exact, a few hundred rollup rows at most); else a count capped
 * at QUERY_EXACT_COUNT_LIMIT + 1 rows, and past the cap the planner's estimate.
 */
async function countMatching(session: ReadOnlySession, { dataset, from, to, filter, where }: Omit<PanelRange, 'spec'>, opts: ExecOptions): Promise<Count> {
  const spec = rollupSpec(dataset)
  const dimension = opts.rollups !== false ? rollupDimensionFor(spec, 'count', filter.columns) : null
  if (dimension !== null) {
    const query = sql`SELECT coalesce(sum("rows"), 0) AS "count" FROM ${rollupRowsSql(spec, dimension, from, to, true)}${filterClause(filter.sql)}`
    return { value: Number((await session.execute(query))[0].count), exact: true, query }
  }
  const cap = Math.min(opts.exactCountLimit ?? config.QUERY_EXACT_COUNT_LIMIT, config.QUERY_EXACT_COUNT_LIMIT)
  const table = id(dataset.table)
  const query = sql`SELECT count(*) AS "count" FROM (SELECT 1 FROM ${table} WHERE ${where} LIMIT ${cap + 1}) AS "matching"`
  const counted = Number((await session.execute(query))[0].count)
  if (counted <= cap) return { value: counted, exact: true, query }
  const estimate = sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} WHERE ${where}`
  const plan = (await session.execute(estimate))[0]['QUERY PLAN']
  const planned = Number((typeof plan === 'string' ? JSON.parse(plan) : plan)?.[0]?.Plan?.['Plan Rows'] ?? 0)
  return { value: Math.max(cap + 1, Math.round(planned)), exact: false, query, estimate }
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~(\d{1,19})$/

/**
 * `2026-01-10T12:00:00.000500Z~1234`: a row's (time, id) to the microsecond, from the `_id` and
 * `_cursor_us` its statement selected (rowKeyColumns): the next page's cursor, and a row's key.
 */
export function rowKey(row: ResultRow): string {
  const us = BigInt(String(row._cursor_us))
  const ms = us >= 0n ? us / 1000n : -((-us + 999n) / 1000n)
  const micros = String(us - ms * 1000n).padStart(3, '0')
  return `${new Date(Number(ms)).toISOString().replace('Z', `${micros}Z`)}~${String(row._id)}`
}

export function parseCursor(cursor: string): { time: string; id: string } {
  const m = CURSOR.exec(cursor)
  if (!m) throw new AppError('invalid_input', 'cursor: not a cursor returned as nextCursor')
  return { time: m[1], id: m[2] }
}

// POST /query/api/dashboard - every panel of the dataset, run concurrently
export async function runDashboard(input: DashboardRequest, opts: ExecOptions = {}): Promise<DashboardResult> {
  const req = parse(DashboardRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = await checkFilter(req.filter, dataset)
  const range: PanelRange = { dataset, spec: rollupSpec(dataset), from, to, filter, where: whereSql(dataset, from, to, filter.sql) }
  const started = performance.now()
  const panels = await Promise.all(dataset.panels.map((panel) => runPanel(panel, range, opts)))
  return {
    dataset: req.dataset,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    panels,
    elapsedMs: round(performance.now() - started),
  }
}

/** A time series panel's result. */
export type HistogramResult = Extract<DashboardPanel, { kind: 'timeseries' }> & { range: { from: string; to: string }; total: number }

/**
 * The rows page's histogram: rows per time bucket for the same range and filter as the rows, the
 * dashboard's "Rows over time" panel (from the rollup when the filter allows it, like the
 * dashboard; its `source` says which).
 */
export async function runHistogram(input: DashboardRequest, opts: ExecOptions = {}): Promise<HistogramResult> {
  const req = parse(DashboardRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = await checkFilter(req.filter, dataset)
  const panel = dataset.panels.find((p) => p.kind === 'timeseries' && p.series.length === 1 && p.series[0].aggregate === 'count')
  if (!panel) throw new Error(`${dataset.id} has no row count panel`)
  const result = await runPanel(panel, { dataset, spec: rollupSpec(dataset), from, to, filter, where: whereSql(dataset, from, to, filter.sql) }, opts)
  if (result.kind !== 'timeseries') throw new Error('not a time series')
  return { ...result, range: { from: from.toISOString(), to: to.toISOString() }, total: result.series[0].values.reduce((a, b) => a + b, 0) }
}

interface PanelRange {
  dataset: DatasetDef
  spec: RollupSpec
  from: Date
  to: Date
  filter: CheckedFilter
  where: SQL
}

async function runPanel(panel: PanelDef, range: PanelRange, opts: ExecOptions): Promise<DashboardPanel> {
  const dimension = opts.rollups !== false ? rollupDimensionFor(range.spec, panel, range.filter.columns) : null
  const source = dimension === null ? 'rows' : 'rollup'
  const { query, bucketS } = dimension === null ? panelSql(panel, range) : rollupPanelSql(panel, range, dimension)
  const rows = await readOnly(opts, (session) => session.execute(query))
  // A list read from an hour-only dimension's capped hours is approximate once a value was left out.
  const leftOut =
    dimension !== null && rollupHourOnly(range.spec, dimension)
      ? await readOnly(opts, (session) => session.execute(rollupLeftOutSql(range.spec, dimension, range.from, range.to)))
      : null
  const approximate = leftOut !== null && Number(leftOut[0]?.left_out ?? 0) > 0 ? { approximate: true as const } : {}
  const base = { id: panel.id, title: panel.title, source, sql: statement(query) } as const
  switch (panel.kind) {
    case 'timeseries': {
      const buckets: string[] = []
      const index = new Map<number, number>()
      const step = bucketS * 1000
      for (let t = Math.floor(range.from.getTime() / step) * step; t < range.to.getTime(); t += step) {
        index.set(t, buckets.length)
        buckets.push(new Date(t).toISOString())
      }
      const series = panel.series.map((s) => ({ key: s.key, label: s.label, values: buckets.map(() => 0) }))
      for (const row of rows) {
        const i = index.get(new Date(toIso(row.bucket)!).getTime())
        if (i === undefined) continue
        panel.series.forEach((s, k) => (series[k].values[i] = Number(row[s.key] ?? 0)))
      }
      return { ...base, kind: 'timeseries', bucketSeconds: bucketS, buckets, series }
    }
    case 'breakdown':
    case 'top': {
      const type = columnType(range.dataset, panel.column)
      return {
        ...base,
        kind: panel.kind,
        column: panel.column,
        rows: rows.map((r) => ({ value: columnValue(type, r.value), count: Number(r.count) })),
        ...approximate,
      }
    }
    case 'latency': {
      const figures = source === 'rollup' ? latencyFromHistogram(rows) : latencyFromRows(rows[0] ?? {})
      // Exact ratios: the page formats them, so 3 of 11,424 never turns into 0.
      const rate = (n: number) => (figures.count === 0 ? null : n / figures.count)
      return {
        ...base,
        kind: 'latency',
        count: figures.count,
        p50Ms: figures.p50,
        p95Ms: figures.p95,
        errorRate: rate(figures.serverErrors),
        clientErrorRate: rate(figures.clientErrors),
      }
    }
  }
}

interface LatencyFigures {
  count: number
  p50: number | null
  p95: number | null
  serverErrors: number
  clientErrors: number
}

const ms = (v: unknown) => (v === null || v === undefined ? null : round(Number(v)))

function latencyFromRows(r: ResultRow): LatencyFigures {
  return { count: Number(r.count ?? 0), p50: ms(r.p50), p95: ms(r.p95), serverErrors: Number(r.server_errors ?? 0), clientErrors: Number(r.client_errors ?? 0) }
}

function latencyFromHistogram(rows: ResultRow[]): LatencyFigures {
  const histogram = rows.map((r) => ({ bucket: Number(r.duration_bucket), rows: Number(r.rows) }))
  const sum = (key: string) => rows.reduce((total, r) => total + Number(r[key] ?? 0), 0)
  return {
    count: sum('rows'),
    p50: ms(percentileFromHistogram(histogram, 0.5)),
    p95: ms(percentileFromHistogram(histogram, 0.95)),
    serverErrors: sum('server_errors'),
    clientErrors: sum('client_errors'),
  }
}

function timeBucket(column: string, bucketS: number): SQL {
  return sql`date_bin(${`${bucketS} seconds`}::interval, ${id(column)}, ${EPOCH}::timestamptz)`
}

const panelLimit = (panel: { kind: 'breakdown' | 'top'; limit?: number }) => (panel.kind === 'top' ? panel.limit || TOP_LIMIT : BREAKDOWN_LIMIT)

/** A panel over the raw rows. */
function panelSql(panel: PanelDef, range: PanelRange): { query: SQL; bucketS: number } {
  const table = id(range.dataset.table)
  const where = range.where
  switch (panel.kind) {
    case 'timeseries': {
      const bucketS = bucketSeconds(range.to.getTime() - range.from.getTime())
      const aggregates = sql.join(
        panel.series.map((s) =>
          s.aggregate === 'sum'
            ? sql`coalesce(sum(${id(s.column)}), 0) AS ${id(s.key)}`
            : s.where
              ? sql`count(*) FILTER (WHERE ${id(s.where.column)} = ${s.where.equals}) AS ${id(s.key)}`
              : sql`count(*) AS ${id(s.key)}`,
        ),
        sql`, `,
      )
      return {
        query: sql`SELECT ${timeBucket(range.dataset.timeColumn, bucketS)} AS "bucket", ${aggregates} FROM ${table} WHERE ${where} GROUP BY 1 ORDER BY 1`,
        bucketS,
      }
    }
    case 'breakdown':
    case 'top': {
      const column = id(panel.column)
      // A top list ranks known values; a breakdown keeps the share without a value.
      const known = panel.kind === 'top' ? sql` AND ${column} IS NOT NULL` : sql``
      return {
        query: sql`SELECT ${column} AS "value", count(*) AS "count" FROM ${table} WHERE ${where}${known} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${panelLimit(panel)}`,
        bucketS: 0,
      }
    }
    case 'latency': {
      const d = id(panel.column)
      const s = id(panel.errorStatusColumn)
      return {
        query: sql`SELECT count(*) AS "count", percentile_cont(0.5) WITHIN GROUP (ORDER BY ${d}) AS "p50", percentile_cont(0.95) WITHIN GROUP (ORDER BY ${d}) AS "p95", count(*) FILTER (WHERE ${s} >= 500) AS "server_errors", count(*) FILTER (WHERE ${s} BETWEEN 400 AND 499) AS "client_errors" FROM ${table} WHERE ${where}`,
        bucketS: 0,
      }
    }
  }
}

/** The same panel over the rollup rows of `dimension` (rollupDimensionFor said it can answer). */
function rollupPanelSql(panel: PanelDef, range: PanelRange, dimension: string): { query: SQL; bucketS: number } {
  const { spec, from, to } = range
  const where = filterClause(range.filter.sql)
  switch (panel.kind) {
    case 'timeseries': {
      const bucketS = bucketSeconds(to.getTime() - from.getTime())
      const aggregates = sql.join(
        panel.series.map((s) =>
          s.aggregate === 'sum'
            ? sql`coalesce(sum(${id(s.column)}), 0) AS ${id(s.key)}`
            : s.where
              ? sql`coalesce(sum("rows") FILTER (WHERE ${id(s.where.column)} = ${s.where.equals}), 0) AS ${id(s.key)}`
              : sql`sum("rows") AS ${id(s.key)}`,
        ),
        sql`, `,
      )
      // Hour rows fit whole buckets only when a bucket is whole hours.
      const rows = rollupRowsSql(spec, dimension, from, to, bucketS % 3600 === 0)
      return { query: sql`SELECT ${timeBucket('bucket', bucketS)} AS "bucket", ${aggregates} FROM ${rows}${where} GROUP BY 1 ORDER BY 1`, bucketS }
    }
    case 'breakdown':
    case 'top': {
      const column = id(panel.column)
      const known = panel.kind === 'top' ? sql`${column} IS NOT NULL` : null
      const conditions = [range.filter.sql ? sql`(${sql.raw(range.filter.sql)})` : null, known].filter((c): c is SQL => c !== null)
      const whereAll = conditions.length ? sql` WHERE ${sql.join(conditions, sql` AND `)}` : sql``
      return {
        query: sql`SELECT ${column} AS "value", sum("rows") AS "count" FROM ${rollupRowsSql(spec, dimension, from, to, true)}${whereAll} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${panelLimit(panel)}`,
        bucketS: 0,
      }
    }
    case 'latency':
      return {
        query: sql`SELECT "duration_bucket", sum("rows") AS "rows", sum("server_errors") AS "server_errors", sum("client_errors") AS "client_errors" FROM ${rollupRowsSql(spec, dimension, from, to, true, true)}${where} GROUP BY 1 ORDER BY 1`,
        bucketS: 0,
      }
  }
}

/** The smallest round bucket that keeps a range within MAX_BUCKETS points. */
export function bucketSeconds(rangeMs: number): number {
  const wanted = Math.max(1, Math.ceil(rangeMs / 1000 / MAX_BUCKETS))
  return NICE_BUCKETS_S.find((b) => b >= wanted) ?? Math.ceil(wanted / 86_400) * 86_400
}

export function whereSql(dataset: DatasetDef, from: Date, to: Date, filter: string | null): SQL {
  const time = id(dataset.timeColumn)
  // The filter text is regenerated from a checked parse tree (lib/query/filter.ts), never the raw input.
  const extra = filter ? sql` AND (${sql.raw(filter)})` : sql``
  return sql`${time} >= ${from.toISOString()}::timestamptz AND ${time} < ${to.toISOString()}::timestamptz${extra}`
}

const filterClause = (filter: string | null) => (filter ? sql` WHERE (${sql.raw(filter)})` : sql``)

/** The columns rowKey() reads: "id" and the time in microseconds. */
export function rowKeyColumns(dataset: DatasetDef): SQL {
  return sql`"id" AS "_id", (extract(epoch FROM ${id(dataset.timeColumn)}) * 1000000)::bigint AS "_cursor_us"`
}

export function selectList(dataset: DatasetDef): SQL {
  return sql.join(
    dataset.columns.map((c) => id(c.name)),
    sql`, `,
  )
}

/**
 * The columns the rollup can count exactly over [from, to): every dimension kept per minute, and an
 * hour-only one when its capped per-hour lists left nothing out in the range (one small read of
 * the rollup's 'other' rows). Facets and group-by read the others from the rows.
 */
export async function exactRollupColumns(spec: RollupSpec, columns: string[], from: Date, to: Date, opts: ExecOptions): Promise<Set<string>> {
  const hourOnly = columns.filter((c) => rollupHourOnly(spec, c))
  const capped = hourOnly.length ? await readOnly(opts, (session) => session.execute(rollupLeftOutByDimensionSql(spec, hourOnly, from, to))) : []
  const leftOut = new Set(capped.map((r) => String(r.dimension)))
  return new Set(columns.filter((c) => !leftOut.has(c)))
}

/** Runs `fn` in a read-only session as query_ro with a statement timeout, and maps database failures to AppErrors. */
export async function readOnly<T>(opts: ExecOptions, fn: (session: ReadOnlySession) => Promise<T>): Promise<T> {
  const timeoutMs = Math.min(opts.timeoutMs ?? config.QUERY_STATEMENT_TIMEOUT_MS, config.QUERY_STATEMENT_TIMEOUT_MS)
  let database: Database
  try {
    database = opts.database ?? (await getReadyDatabase())
  } catch (error) {
    throw unreachable(error)
  }
  const run = limited(database, timeoutMs, fn)
  for (let attempt = 1; ; attempt++) {
    try {
      return await run()
    } catch (error) {
      const code = dbCause(error)?.code
      // Every connection of the readers' pool stayed busy past its connect timeout (long queries
      // waiting behind partition DDL, or a database that stopped answering): a 503, not a 500.
      if (!code && error instanceof Error && /timeout exceeded when trying to connect/.test(error.message))
        throw new AppError(
          'unavailable',
          `Every database connection is busy; nothing is wrong with the query. Retry after ${TRANSIENT_RETRY_AFTER_S} second.`,
          { retryAfterSeconds: TRANSIENT_RETRY_AFTER_S, detail: error.message },
        )
      if (!code || !TRANSIENT.has(code)) throw databaseError(error, timeoutMs)
      // A deadlock or serialization failure (partition maintenance running beside the query): the
      // query is read-only, so it is run once more; a second failure asks the client to retry.
      log.warn('query met a transient database conflict', { code, attempt, message: dbCause(error)?.message })
      if (attempt >= 2)
        throw new AppError(
          'unavailable',
          `The database was busy (${TRANSIENT.get(code)}, usually partition maintenance); nothing is wrong with the query. Retry after ${TRANSIENT_RETRY_AFTER_S} second.`,
          {
            retryAfterSeconds: TRANSIENT_RETRY_AFTER_S,
            detail: code,
          },
        )
    }
  }
}

/**
 * The session, its statements counted against the identity running them (lib/query/concurrency.ts):
 * node-postgres's pooled statements each hold a backend of their own, so each takes a slot; on the
 * other drivers a session is one transaction on one connection, so the session takes one, before
 * it holds a connection.
 */
function limited<T>(database: Database, timeoutMs: number, fn: (session: ReadOnlySession) => Promise<T>): () => Promise<T> {
  const key = currentQueryIdentity()
  if (!key) return () => database.readOnly(timeoutMs, fn)
  // The driver of the sessions: the read replica's when the query role reads one (QUERY_DATABASE_URL).
  if ((database.replica?.driver ?? database.driver) === 'node-postgres')
    return () => database.readOnly(timeoutMs, (session) => fn({ execute: (query) => withStatementSlot(key, () => session.execute(query)) }))
  return () => withStatementSlot(key, () => database.readOnly(timeoutMs, fn))
}

/** SQLSTATEs a read-only query may meet while DDL runs beside it; retried once, then 503. */
const TRANSIENT = new Map([
  ['40P01', 'deadlock detected'],
  ['40001', 'serialization failure'],
  ['55P03', 'lock not available'],
])
const TRANSIENT_RETRY_AFTER_S = 1
const RESOURCE_RETRY_AFTER_S = 30

const FILTER_ERRORS = new Set(['42804', '42883', '42725', '42846', '42P18', '42601'])

function databaseError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof AppError) return error
  // The read replica the query role reads (QUERY_DATABASE_URL) could not be reached: a 503 that names it.
  const replica = replicaFailure(error)
  if (replica) return replica
  const cause = dbCause(error)
  const code = cause?.code
  const message = cause?.message ?? String(error)
  if (code === '57014')
    return new AppError(
      'upstream_timeout',
      `The query ran longer than the ${timeoutMs} ms statement timeout (QUERY_STATEMENT_TIMEOUT_MS) and was cancelled. Narrow the date range or make the filter more selective.`,
      { timeoutMs },
    )
  if (code && (code.startsWith('22') || FILTER_ERRORS.has(code))) return new AppError('invalid_input', `The database rejected the filter: ${message}`)
  // Resource limits (class 53) and program limits (class 54): what one query asked for is beyond
  // what the database gives it (a value past 1 GB, temp_file_limit, memory), or the server is
  // short of memory, disk or connections for now. Never a 500: the first two say what to change,
  // the others to retry.
  if (code === '53400' || code?.startsWith('54'))
    return new AppError(
      'invalid_input',
      `The query needs more than the database allows one query (${message}; SQLSTATE ${code}). Narrow the date range or simplify the filter.`,
    )
  if (code?.startsWith('53'))
    return new AppError(
      'unavailable',
      `The database is short of ${code === '53100' ? 'disk space' : code === '53300' ? 'connections' : 'memory'} for this query (${message}; SQLSTATE ${code}). Retry later, or narrow the date range or simplify the filter.`,
      { retryAfterSeconds: RESOURCE_RETRY_AFTER_S, detail: code },
    )
  if (code === '42501' || code === '25006') return new AppError('forbidden', `Not permitted for queries: ${message}`)
  if (isConnectionFailure(error)) return unreachable(error)
  return error
}

function unreachable(error: unknown): AppError {
  const message = dbCause(error)?.message ?? String(error)
  return new AppError('upstream_failed', `The database is unreachable: ${message}`)
}

/** The driver's error (drizzle wraps it in DrizzleQueryError.cause), else the error's own message. */
const dbCause = (error: unknown): { code?: string; message?: string } | undefined =>
  codedCause(error) ?? (error instanceof Error ? { message: error.message } : undefined)

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw new AppError('invalid_input', describeZodError(parsed.error))
  return parsed.data
}

/** A statement as it will run: its text and bound parameters, for the pages to show. */
export function statement(query: SQL): Statement {
  const q = dialect.sqlToQuery(query)
  return { text: q.sql, params: q.params as Statement['params'] }
}

function columnType(dataset: DatasetDef, name: string): ColumnType {
  return dataset.columns.find((c) => c.name === name)?.type ?? 'text'
}

export function normaliseRow(dataset: DatasetDef, row: ResultRow): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const c of dataset.columns) out[c.name] = columnValue(c.type, row[c.name])
  return out
}

/** Driver-independent JSON values: drivers differ on int8 (string or number) and timestamps. */
export function columnValue(type: ColumnType, v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null
  switch (type) {
    case 'timestamp':
      return toIso(v)
    case 'integer':
    case 'bigint':
    case 'number':
      return Number(v)
    case 'boolean':
      return typeof v === 'boolean' ? v : v === 't' || v === 'true'
    case 'json':
      return typeof v === 'string' ? v : JSON.stringify(v)
    default:
      return String(v)
  }
}

/** Date or Postgres timestamptz text ('2026-11-21 13:00:00.5+00') → ISO 8601 UTC. */
function toIso(v: unknown): string | null {
  if (v === null || v === undefined) return null
  const d = parseTimestamp(v)
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString()
}

const round = (n: number) => Math.round(n * 100) / 100

/** Null when the dataset holds no demonstration row (the query page then says nothing); else whether the database is the embedded one (PGlite). */
export async function demoRowsOf(id: DatasetId): Promise<{ embedded: boolean } | null> {
  const database = await getReadyDatabase()
  const result = await database.db.execute(sql`SELECT EXISTS (SELECT 1 FROM ${sql.identifier(DATASETS[id].table)} WHERE demo) AS present`)
  return rowsOf(result)[0]?.present === true ? { embedded: database.driver === 'pglite' } : null
}

import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { z } from 'zod'
import { config } from '@/lib/config'
import { getReadyDatabase, type Db } from '@/lib/db/client'
import { AppError, describeZodError } from '@/lib/http/errors'
import { DATASETS, DATASET_IDS, getDataset, type ColumnType, type DatasetDef, type PanelDef } from '@/lib/query/datasets'
import { checkFilter } from '@/lib/query/filter'
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
// builds dashboard aggregations. Every statement runs inside a READ ONLY transaction, under the
// SELECT-only role query_ro, with a statement timeout (stack.md §7; style.md §3.9).

export { DashboardRequest, QueryRequest, QueryResult, DashboardResult, DatasetList } from '@/lib/query/schemas'

export const QUERY_ROLE = 'query_ro'
const TOP_LIMIT = 10
const BREAKDOWN_LIMIT = 20
const MAX_BUCKETS = 200
const NICE_BUCKETS_S = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400]

const dialect = new PgDialect()

export interface ExecOptions {
  /** The database to use (tests); the process-wide one otherwise. */
  db?: Db
  /** Statement timeout; may only tighten QUERY_STATEMENT_TIMEOUT_MS. */
  timeoutMs?: number
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]
type Row = Record<string, unknown>

// GET /query/api/datasets - the datasets with their columns, quick filters and panels
export function listDatasets(): DatasetList {
  return {
    datasets: DATASET_IDS.map((id) => {
      const d = DATASETS[id]
      return { id, label: d.label, description: d.description, timeColumn: d.timeColumn, columns: d.columns, quickFilters: d.quickFilters, panels: d.panels }
    }),
    maxRangeDays: config.QUERY_MAX_RANGE_DAYS,
    limits: { minLimit: 1, maxLimit: 500, defaultLimit: 100, statementTimeoutMs: config.QUERY_STATEMENT_TIMEOUT_MS },
  }
}

// POST /query/api/query - one page of rows and the total count
export async function runQuery(input: QueryRequest, opts: ExecOptions = {}): Promise<QueryResult> {
  const req = parse(QueryRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = (await checkFilter(req.filter, dataset)).sql
  const where = whereSql(dataset, from, to, filter)
  const time = sql.identifier(dataset.timeColumn)
  const rowsSql = sql`SELECT ${selectList(dataset)} FROM ${sql.identifier(dataset.table)} WHERE ${where} ORDER BY ${time} DESC, "id" DESC LIMIT ${req.limit} OFFSET ${req.offset}`
  const countSql = sql`SELECT count(*) AS "count" FROM ${sql.identifier(dataset.table)} WHERE ${where}`

  const started = performance.now()
  const [rows, count] = await readOnly(opts, async (tx) => {
    const page = rowsOf(await tx.execute(rowsSql))
    const total = rowsOf(await tx.execute(countSql))
    return [page, Number(total[0].count)] as const
  })
  return {
    dataset: dataset.id,
    columns: dataset.columns.map((c) => c.name),
    rows: rows.map((r) => normaliseRow(dataset, r)),
    count,
    limit: req.limit,
    offset: req.offset,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter,
    elapsedMs: round(performance.now() - started),
    sql: statement(rowsSql),
    countSql: statement(countSql),
  }
}

// POST /query/api/dashboard - every panel of the dataset, run concurrently
export async function runDashboard(input: DashboardRequest, opts: ExecOptions = {}): Promise<DashboardResult> {
  const req = parse(DashboardRequest, input)
  const dataset = getDataset(req.dataset)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = (await checkFilter(req.filter, dataset)).sql
  const where = whereSql(dataset, from, to, filter)
  const started = performance.now()
  const panels = await Promise.all(dataset.panels.map((panel) => runPanel(panel, dataset, where, from, to, opts)))
  return {
    dataset: dataset.id,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter,
    panels,
    elapsedMs: round(performance.now() - started),
  }
}

async function runPanel(panel: PanelDef, dataset: DatasetDef, where: SQL, from: Date, to: Date, opts: ExecOptions): Promise<DashboardPanel> {
  const { query, bucketS } = panelSql(panel, dataset, where, from, to)
  const rows = await readOnly(opts, async (tx) => rowsOf(await tx.execute(query)))
  const ran = statement(query)
  switch (panel.kind) {
    case 'timeseries': {
      const buckets: string[] = []
      const index = new Map<number, number>()
      for (let t = from.getTime(); t < to.getTime(); t += bucketS * 1000) {
        index.set(t, buckets.length)
        buckets.push(new Date(t).toISOString())
      }
      const series = panel.series.map((s) => ({ key: s.key, label: s.label, values: buckets.map(() => 0) }))
      for (const row of rows) {
        const i = index.get(new Date(toIso(row.bucket)!).getTime())
        if (i === undefined) continue
        panel.series.forEach((s, k) => (series[k].values[i] = Number(row[s.key] ?? 0)))
      }
      return { id: panel.id, sql: ran, kind: 'timeseries', title: panel.title, bucketSeconds: bucketS, buckets, series }
    }
    case 'breakdown':
    case 'top': {
      const type = columnType(dataset, panel.column)
      return { id: panel.id, sql: ran, kind: panel.kind, title: panel.title, column: panel.column, rows: rows.map((r) => ({ value: normalise(type, r.value), count: Number(r.count) })) }
    }
    case 'latency': {
      const r = rows[0] ?? {}
      const num = (v: unknown) => (v === null || v === undefined ? null : round(Number(v)))
      return { id: panel.id, sql: ran, kind: 'latency', title: panel.title, count: Number(r.count ?? 0), p50Ms: num(r.p50), p95Ms: num(r.p95), errorRate: num(r.error_rate), clientErrorRate: num(r.client_error_rate) }
    }
  }
}

function panelSql(panel: PanelDef, dataset: DatasetDef, where: SQL, from: Date, to: Date): { query: SQL; bucketS: number } {
  const table = sql.identifier(dataset.table)
  switch (panel.kind) {
    case 'timeseries': {
      const bucketS = bucketSeconds(to.getTime() - from.getTime())
      const aggregates = sql.join(
        panel.series.map((s) => (s.aggregate === 'count' ? sql`count(*) AS ${sql.identifier(s.key)}` : sql`coalesce(sum(${sql.identifier(s.column)}), 0) AS ${sql.identifier(s.key)}`)),
        sql`, `,
      )
      const bucket = sql`date_bin(${`${bucketS} seconds`}::interval, ${sql.identifier(dataset.timeColumn)}, ${from.toISOString()}::timestamptz)`
      return { query: sql`SELECT ${bucket} AS "bucket", ${aggregates} FROM ${table} WHERE ${where} GROUP BY 1 ORDER BY 1`, bucketS }
    }
    case 'breakdown':
    case 'top': {
      const limit = panel.kind === 'top' ? panel.limit || TOP_LIMIT : BREAKDOWN_LIMIT
      const column = sql.identifier(panel.column)
      // A top list ranks known values; a breakdown keeps the share without a value.
      const known = panel.kind === 'top' ? sql` AND ${column} IS NOT NULL` : sql``
      return { query: sql`SELECT ${column} AS "value", count(*) AS "count" FROM ${table} WHERE ${where}${known} GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${limit}`, bucketS: 0 }
    }
    case 'latency': {
      const d = sql.identifier(panel.column)
      const s = sql.identifier(panel.errorStatusColumn)
      return {
        query: sql`SELECT count(*) AS "count", percentile_cont(0.5) WITHIN GROUP (ORDER BY ${d}) AS "p50", percentile_cont(0.95) WITHIN GROUP (ORDER BY ${d}) AS "p95", avg(CASE WHEN ${s} >= 500 THEN 1.0 ELSE 0.0 END) AS "error_rate", avg(CASE WHEN ${s} BETWEEN 400 AND 499 THEN 1.0 ELSE 0.0 END) AS "client_error_rate" FROM ${table} WHERE ${where}`,
        bucketS: 0,
      }
    }
  }
}

/** The smallest round bucket that keeps a range within MAX_BUCKETS points. */
export function bucketSeconds(rangeMs: number): number {
  const wanted = Math.max(1, Math.ceil(rangeMs / 1000 / MAX_BUCKETS))
  return NICE_BUCKETS_S.find((b) => b >= wanted) ?? Math.ceil(wanted / 86_400) * 86_400
}

export function whereSql(dataset: DatasetDef, from: Date, to: Date, filter: string | null): SQL {
  const time = sql.identifier(dataset.timeColumn)
  // The filter text is regenerated from a checked parse tree (lib/query/filter.ts), never the raw input.
  const extra = filter ? sql` AND (${sql.raw(filter)})` : sql``
  return sql`${time} >= ${from.toISOString()}::timestamptz AND ${time} < ${to.toISOString()}::timestamptz${extra}`
}

export function selectList(dataset: DatasetDef): SQL {
  return sql.join(dataset.columns.map((c) => sql.identifier(c.name)), sql`, `)
}

/**
 * Runs `fn` in a READ ONLY (repeatable read: rows and count see one snapshot) transaction as
 * query_ro with a statement timeout, and maps database failures to AppErrors.
 */
export async function readOnly<T>(opts: ExecOptions, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const timeoutMs = Math.min(opts.timeoutMs ?? config.QUERY_STATEMENT_TIMEOUT_MS, config.QUERY_STATEMENT_TIMEOUT_MS)
  const db = opts.db ?? (await getReadyDatabase().catch((error) => Promise.reject(unreachable(error)))).db
  try {
    return await db.transaction(
      async (tx) => {
        // One round trip for both settings; set_config(…, true) is SET LOCAL. Any later attempt to
        // switch back is blocked by the filter's function allow-list.
        await tx.execute(sql`SELECT set_config('role', ${QUERY_ROLE}, true), set_config('statement_timeout', ${String(timeoutMs)}, true)`)
        return fn(tx)
      },
      { accessMode: 'read only', isolationLevel: 'repeatable read' },
    )
  } catch (error) {
    throw databaseError(error, timeoutMs)
  }
}

const FILTER_ERRORS = new Set(['42804', '42883', '42725', '42846', '42P18', '42601'])

function databaseError(error: unknown, timeoutMs: number): unknown {
  if (error instanceof AppError) return error
  const cause = dbCause(error)
  const code = cause?.code
  const message = cause?.message ?? String(error)
  if (code === '57014')
    return new AppError('upstream_timeout', `The query ran longer than the ${timeoutMs} ms statement timeout (QUERY_STATEMENT_TIMEOUT_MS) and was cancelled. Narrow the date range or make the filter more selective.`, { timeoutMs })
  if (code && (code.startsWith('22') || FILTER_ERRORS.has(code))) return new AppError('invalid_input', `The database rejected the filter: ${message}`)
  if (code === '42501' || code === '25006') return new AppError('forbidden', `Not permitted for queries: ${message}`)
  if (code && /^E[A-Z]+$/.test(code)) return unreachable(error)
  return error
}

function unreachable(error: unknown): AppError {
  const message = dbCause(error)?.message ?? String(error)
  return new AppError('upstream_failed', `The database is unreachable: ${message}`)
}

/** The driver's error (drizzle wraps it in DrizzleQueryError.cause). */
function dbCause(error: unknown): { code?: string; message?: string } | undefined {
  let e: unknown = error
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return e as { code: string; message?: string }
    e = (e as { cause?: unknown }).cause
  }
  return error instanceof Error ? { message: error.message } : undefined
}

export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) throw new AppError('invalid_input', describeZodError(parsed.error))
  return parsed.data
}

function statement(query: SQL): { text: string; params: Array<string | number | boolean | null> } {
  const q = dialect.sqlToQuery(query)
  return { text: q.sql, params: q.params as Array<string | number | boolean | null> }
}

function columnType(dataset: DatasetDef, name: string): ColumnType {
  return dataset.columns.find((c) => c.name === name)?.type ?? 'text'
}

export function normaliseRow(dataset: DatasetDef, row: Row): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const c of dataset.columns) out[c.name] = normalise(c.type, row[c.name])
  return out
}

/** Driver-independent JSON values: drivers differ on int8 (string or number) and timestamps. */
function normalise(type: ColumnType, v: unknown): string | number | boolean | null {
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
    default:
      return String(v)
  }
}

/** Date or Postgres timestamptz text ('2026-11-21 13:00:00.5+00') → ISO 8601 UTC. */
function toIso(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (v instanceof Date) return v.toISOString()
  const s = String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')
  const d = new Date(s)
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString()
}

/** Every driver used here returns `{ rows }` from execute(). */
const rowsOf = (result: unknown) => (result as { rows: Row[] }).rows

const round = (n: number) => Math.round(n * 100) / 100

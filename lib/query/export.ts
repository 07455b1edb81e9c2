import 'server-only'
import { stringify } from 'csv-stringify/sync'
import { sql, type SQL } from 'drizzle-orm'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { getDataset, type DatasetDef } from '@/lib/datasets/catalog'
import { checkFilter } from '@/lib/query/filter'
import { ExportRequest, resolveRange, type ExportFormat } from '@/lib/query/schemas'
import { normaliseRow, parse, readOnly, selectList, sortOrder, whereSql, type ExecOptions } from '@/lib/query/service'

// Export of every row that matches a range and filter, newest first or in the page's sort, as CSV
// or NDJSON. Rows are read in batches by keyset ((sort column,) time, id), each batch its own short READ ONLY statement under the
// same role and timeout as a page, and written out as they arrive: memory holds one batch, and a
// slow download holds no transaction open. QUERY_EXPORT_MAX_ROWS caps the total.

export const EXPORT_BATCH_ROWS = 1000

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
}

type Row = Record<string, string | number | boolean | null>

export interface ExportOptions extends ExecOptions {
  batchSize?: number
  /** May only tighten QUERY_EXPORT_MAX_ROWS. */
  maxRows?: number
  /** The order of the page exported (one of the dataset's sortColumns); newest first by default. */
  sort?: { sort: string; order: 'asc' | 'desc' }
}

export interface OpenedExport {
  dataset: DatasetDef
  format: ExportFormat
  columns: string[]
  range: { from: string; to: string }
  maxRows: number
  /** The export's text, chunk by chunk (header first); the first batch has already been read. */
  chunks: AsyncGenerator<string, void, undefined>
}

/**
 * Validates the request and reads the first batch, so that a rejected filter or a timeout is an
 * error response rather than a broken download; the rest is read as the chunks are consumed.
 */
export async function openExport(input: ExportRequest, opts: ExportOptions = {}): Promise<OpenedExport> {
  const req = parse(ExportRequest, input)
  const dataset = getDataset(req.dataset)
  const all = dataset.columns.map((c) => c.name)
  const unknown = (req.columns ?? []).filter((c) => !all.includes(c))
  if (unknown.length) throw new AppError('invalid_input', `Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} in dataset ${dataset.id}.`)
  const columns = req.columns?.length ? all.filter((c) => req.columns!.includes(c)) : all
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const where = whereSql(dataset, from, to, (await checkFilter(req.filter, dataset)).sql)
  const maxRows = Math.min(opts.maxRows ?? config.QUERY_EXPORT_MAX_ROWS, config.QUERY_EXPORT_MAX_ROWS)
  const order = sortOrder(dataset, opts.sort?.sort, opts.sort?.order ?? 'desc')
  const batches = readBatches(dataset, where, maxRows, opts, order)
  const first = await batches.next()
  return {
    dataset,
    format: req.format,
    columns,
    range: { from: from.toISOString(), to: to.toISOString() },
    maxRows,
    chunks: encode(req.format, columns, first, batches),
  }
}

interface Key {
  time: string
  id: string
  /** Whether the sort column's value is null (sorted by a column other than time). */
  isNull: boolean
}

async function* readBatches(
  dataset: DatasetDef,
  where: SQL,
  maxRows: number,
  opts: ExportOptions,
  order: ReturnType<typeof sortOrder>,
): AsyncGenerator<Row[], void, undefined> {
  const batchSize = Math.max(1, opts.batchSize ?? EXPORT_BATCH_ROWS)
  const table = sql.identifier(dataset.table)
  const time = sql.identifier(dataset.timeColumn)
  const column = sql.identifier(order.column)
  let key: Key | null = null
  for (let sent = 0; sent < maxRows;) {
    const limit = Math.min(batchSize, maxRows - sent)
    const after: SQL = key ? sql` AND (${keyset(key)})` : sql``
    const query = sql`SELECT ${selectList(dataset)}, "id"::text AS "__key_id", to_char(${time} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "__key_time", ${order.byTime ? sql`false` : sql`${column} IS NULL`} AS "__key_null" FROM ${table} WHERE ${where}${after} ORDER BY ${order.sql} LIMIT ${limit}`
    const rows = await readOnly(opts, (session) => session.execute(query))
    if (rows.length === 0) return
    const last = rows[rows.length - 1]
    key = { time: String(last.__key_time), id: String(last.__key_id), isNull: last.__key_null === true || last.__key_null === 't' }
    sent += rows.length
    yield rows.map((r) => normaliseRow(dataset, r))
    if (rows.length < limit) return
  }

  /**
   * The rows after `key` in the page's order (sortOrder: column, time, id, all one direction;
   * Postgres puts nulls first descending and last ascending). The key is the time to the
   * microsecond as UTC text (a JS Date would round it to the millisecond and skip or repeat rows)
   * and the row id, which breaks ties; the sort column's value is read back from that row (an
   * InitPlan, once per batch), so no value changes type on its way through JavaScript.
   */
  function keyset(k: Key): SQL {
    const cmp = sql.raw(order.desc ? '<' : '>')
    const tie = sql`(${time}, "id") ${cmp} (${k.time}::timestamptz, ${k.id}::bigint)`
    if (order.byTime) return tie
    const value = sql`(SELECT ${column} FROM ${table} WHERE ${time} = ${k.time}::timestamptz AND "id" = ${k.id}::bigint)`
    if (order.desc)
      return k.isNull ? sql`(${column} IS NULL AND ${tie}) OR ${column} IS NOT NULL` : sql`${column} < ${value} OR (${column} = ${value} AND ${tie})`
    return k.isNull ? sql`${column} IS NULL AND ${tie}` : sql`${column} > ${value} OR (${column} = ${value} AND ${tie}) OR ${column} IS NULL`
  }
}

async function* encode(
  format: ExportFormat,
  columns: string[],
  first: IteratorResult<Row[], void>,
  rest: AsyncGenerator<Row[], void, undefined>,
): AsyncGenerator<string, void, undefined> {
  // The byte-order mark tells spreadsheets the file is UTF-8, so non-ASCII text survives.
  if (format === 'csv') yield `\uFEFF${stringify([columns])}`
  for (let batch = first; !batch.done; batch = await rest.next()) yield format === 'csv' ? csvRows(batch.value, columns) : ndjsonRows(batch.value, columns)
}

function csvRows(rows: Row[], columns: string[]): string {
  // escape_formulas: cells such as user agents and referrers are client-supplied, and a leading
  // = + - @ would run as a formula in a spreadsheet.
  return stringify(rows, { columns, escape_formulas: true, cast: { boolean: (b) => String(b) } })
}

function ndjsonRows(rows: Row[], columns: string[]): string {
  return rows.map((r) => `${JSON.stringify(Object.fromEntries(columns.map((c) => [c, r[c]])))}\n`).join('')
}

/** A download name from the dataset and range: `dns-20261121T000000Z-20261122T000000Z.csv`. */
export function exportFileName(opened: Pick<OpenedExport, 'dataset' | 'range' | 'format'>): string {
  const stamp = (iso: string) => iso.replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '')
  return `${opened.dataset.id}-${stamp(opened.range.from)}-${stamp(opened.range.to)}.${opened.format}`
}

import 'server-only'
import { sql } from 'drizzle-orm'
import { config } from '@/lib/config'
import { getDataset } from '@/lib/datasets/catalog'
import { checkFilter } from '@/lib/query/filter'
import { ContextRequest, type ContextResult } from '@/lib/query/schemas'
import { normaliseRow, parse, parseCursor, readOnly, rowKey, rowKeyColumns, selectList, statement, whereSql, type ExecOptions } from '@/lib/query/service'

// Rows in context: the N rows just newer and just older than one row, in the (time, id) order every
// page uses, optionally only those matching a filter (the same client, route or host). Two keyset
// reads of the time index, each stopping after N rows, so a row's context costs the same on any
// table size; each side reaches back or forward at most QUERY_MAX_RANGE_DAYS, the longest range a
// page may ask for, so a filter nothing else matches ends there instead of scanning the table.

const DAY_MS = 86_400_000
const id = (name: string) => sql.identifier(name)

export async function runContext(input: ContextRequest, opts: ExecOptions = {}): Promise<ContextResult> {
  const req = parse(ContextRequest, input)
  const dataset = getDataset(req.dataset)
  const filter = await checkFilter(req.filter, dataset)
  const at = parseCursor(req.at)
  const atMs = Date.parse(at.time)
  const reach = config.QUERY_MAX_RANGE_DAYS * DAY_MS
  // The window is whole milliseconds; the row's own microseconds are compared in the keyset.
  const from = new Date(Math.floor(atMs) - reach)
  const to = new Date(Math.floor(atMs) + 1 + reach)
  const where = whereSql(dataset, from, to, filter.sql)
  const time = id(dataset.timeColumn)
  const key = sql`(${at.time}::timestamptz, ${at.id}::bigint)`
  const columns = sql`${selectList(dataset)}, ${rowKeyColumns(dataset)}`
  const newerSql = sql`SELECT ${columns} FROM ${id(dataset.table)} WHERE ${where} AND ${time} >= ${at.time}::timestamptz AND (${time}, "id") > ${key} ORDER BY ${time} ASC, "id" ASC LIMIT ${req.rows}`
  const olderSql = sql`SELECT ${columns} FROM ${id(dataset.table)} WHERE ${where} AND ${time} <= ${at.time}::timestamptz AND (${time}, "id") <= ${key} ORDER BY ${time} DESC, "id" DESC LIMIT ${req.rows + 1}`

  const started = performance.now()
  const [newer, olderWithRow] = await readOnly(opts, (session) => Promise.all([session.execute(newerSql), session.execute(olderSql)]))
  const elapsedMs = Math.round((performance.now() - started) * 100) / 100
  const found = olderWithRow[0] !== undefined && rowKey(olderWithRow[0]) === req.at
  const older = found ? olderWithRow.slice(1) : olderWithRow.slice(0, req.rows)
  const rows = [...newer.reverse(), ...(found ? [olderWithRow[0]] : []), ...older]
  return {
    dataset: req.dataset,
    at: req.at,
    columns: dataset.columns.map((c) => c.name),
    rows: rows.map((r) => normaliseRow(dataset, r)),
    keys: rows.map(rowKey),
    anchor: found ? newer.length : null,
    newer: newer.length,
    older: older.length,
    window: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    sql: [statement(newerSql), statement(olderSql)],
    elapsedMs,
  }
}

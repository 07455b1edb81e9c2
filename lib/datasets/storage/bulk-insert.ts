import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import type { Db } from '@/lib/db/client'
import { rowsOf } from '@/lib/db/rows'
import {
  insertColumns,
  insertSelectWithRollupSql,
  insertWithRollup,
  type InsertColumn,
  type InsertRow,
  type StoredDataset,
} from '@/lib/datasets/storage/rollups'

// Bulk writes of dataset rows with their rollup, for the Logpush ingest and the request-log writer.
// Inside the caller's transaction:
//   1. CREATE TEMP TABLE (only the columns written, no index, not WAL-logged; dropped at commit);
//   2. COPY the rows into it (node-postgres: COPY FROM STDIN through pg-copy-streams; PGlite:
//      COPY FROM '/dev/blob' with the rows as a blob);
//   3. one INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING into the partitioned table, whose
//      RETURNING rows feed the rollup upsert of the same statement (lib/datasets/storage/rollups.ts).
// So rows and rollup commit together, replays insert and count nothing twice, rows for a day
// without a partition land in the default partition (drained later) exactly as a plain INSERT's
// would, and the database parses COPY text instead of one large JSON parameter. Drivers that
// cannot COPY inside a transaction (Neon's WebSocket pool) send the rows as JSON instead
// (insertWithRollup), in chunks; the result is the same.

/** Rows per statement on the JSON path (one JSON parameter each). */
export const JSON_CHUNK_ROWS = 10_000
/** Rows per string handed to COPY: bounds memory without a write per row. */
const COPY_CHUNK_ROWS = 2000

export type BulkPath = 'copy-stdin' | 'copy-blob' | 'json'

export type Transaction = Parameters<Parameters<Db['transaction']>[0]>[0]

interface PgliteTx {
  query(text: string, params?: unknown[], options?: { blob?: Blob }): Promise<unknown>
  exec(text: string): Promise<unknown>
}

/** The transaction's own connection, when this module knows how to COPY through it. */
function copyTarget(tx: Transaction): { path: 'copy-stdin'; client: pg.ClientBase } | { path: 'copy-blob'; client: PgliteTx } | null {
  const client = (tx as unknown as { session?: { client?: unknown } }).session?.client
  if (client instanceof pg.Client) return { path: 'copy-stdin', client }
  // PGlite's transaction object (lib/db/client.ts runs PGlite for local use and tests).
  if (client && typeof (client as PgliteTx).exec === 'function' && typeof (client as { rollback?: unknown }).rollback === 'function')
    return { path: 'copy-blob', client: client as PgliteTx }
  return null
}

/** Which way rows would travel inside `tx` (for tests and logs). */
export function bulkPathOf(tx: Transaction): BulkPath {
  return copyTarget(tx)?.path ?? 'json'
}

// COPY's text format: tab-separated, \N for NULL, backslash escapes for \, tab, newline and CR.
const SPECIAL = /[\\\t\n\r]/g
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' }

function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N'
  if (v instanceof Date) return v.toISOString()
  if (typeof v === 'boolean') return v ? 't' : 'f'
  if (typeof v === 'number') return String(v)
  // A jsonb value (an object) as its JSON text, as the JSON path stores it.
  return (typeof v === 'string' ? v : JSON.stringify(v)).replace(SPECIAL, (c) => ESCAPES[c])
}

/** The rows as COPY text, in strings of COPY_CHUNK_ROWS lines. */
export function* copyText(rows: InsertRow[], columns: InsertColumn[]): Generator<string> {
  for (let i = 0; i < rows.length; i += COPY_CHUNK_ROWS) {
    let chunk = ''
    for (const row of rows.slice(i, i + COPY_CHUNK_ROWS)) {
      for (let c = 0; c < columns.length; c++) chunk += (c ? '\t' : '') + copyValue(row[columns[c].prop])
      chunk += '\n'
    }
    yield chunk
  }
}

let stages = 0

/**
 * Inserts rows (keyed by the table's property names, all of one shape) into a dataset's table and
 * adds them to its rollup, inside `tx`. Rows that conflict on the dataset's `conflict` columns are
 * skipped and not counted. Returns how many rows were inserted.
 */
export async function bulkInsertWithRollup(tx: Transaction, dataset: StoredDataset, rows: InsertRow[]): Promise<number> {
  if (rows.length === 0) return 0
  const target = copyTarget(tx)
  if (!target) {
    let inserted = 0
    for (let i = 0; i < rows.length; i += JSON_CHUNK_ROWS) inserted += await insertWithRollup(tx, dataset, rows.slice(i, i + JSON_CHUNK_ROWS))
    return inserted
  }
  const columns = insertColumns(dataset.rows, rows[0])
  // A name of its own per call: two calls in one transaction never share a staging table.
  const stage = `bulk_stage_${process.pid}_${++stages}`
  const names = columns.map((c) => c.name)
  const definition = sql.join(
    columns.map((c) => sql`${sql.identifier(c.name)} ${sql.raw(c.type)}`),
    sql`, `,
  )
  await tx.execute(sql`CREATE TEMP TABLE ${sql.identifier(stage)} (${definition}) ON COMMIT DROP`)
  const copy = `COPY "${stage}" (${names.map((n) => `"${n}"`).join(', ')}) FROM `
  if (target.path === 'copy-stdin') await pipeline(Readable.from(copyText(rows, columns)), target.client.query(copyFrom(`${copy}STDIN`)))
  else await target.client.query(`${copy}'/dev/blob'`, [], { blob: new Blob([...copyText(rows, columns)]) })
  const result = await tx.execute(insertSelectWithRollupSql(dataset.definition, names, sql`${sql.identifier(stage)}`, dataset.conflict))
  return Number(rowsOf<{ inserted: number | string }>(result)[0].inserted)
}

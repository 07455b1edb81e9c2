import 'server-only'
import type { requestLog } from '@/lib/datasets/requests/tables'
import type { Db } from '@/lib/db/client'
import { write } from '@/lib/datasets/requests/store'

// The request log's write, for the writer (lib/request-log/writer.ts) and anything that
// replays entries: one transaction copies the rows into a staging table, inserts them and adds them
// to the rollup (lib/datasets/storage/bulk-insert.ts). A row is unique by (request_id, time), so a batch
// written again after a lost acknowledgement, a retry or a replay stores and counts nothing twice;
// a failed write stores nothing and may simply be written again.

export type RequestLogRow = typeof requestLog.$inferInsert

/** Writes the rows; returns how many were new. */
export async function writeRequestLog(db: Db, rows: RequestLogRow[]): Promise<number> {
  if (rows.length === 0) return 0
  return db.transaction((tx) => write.bulkInsert(tx, rows))
}

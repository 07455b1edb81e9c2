import 'server-only'
import type { requestLog } from '@/drizzle/schema'
import type { Db } from '@/lib/db/client'
import { insertWithRollup } from '@/lib/query/rollups'

// The request log's write, for the writer (lib/query/request-log-writer.ts) and anything that
// replays entries: each statement inserts a chunk of rows and adds them to the rollup. A row is
// unique by (request_id, time), so a batch written again after a lost acknowledgement, a retry or
// a replay stores and counts nothing twice; a failed chunk may simply be written again.

export type RequestLogRow = typeof requestLog.$inferInsert

const CHUNK_ROWS = 5000

/** Writes the rows; returns how many were new. */
export async function writeRequestLog(db: Pick<Db, 'execute'>, rows: RequestLogRow[]): Promise<number> {
  let inserted = 0
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) inserted += await insertWithRollup(db, 'requests', rows.slice(i, i + CHUNK_ROWS), ['request_id', 'time'])
  return inserted
}

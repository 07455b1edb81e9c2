import type { PgTable } from 'drizzle-orm/pg-core'
import type { Db } from '@/lib/db/client'
import { bulkInsertWithRollup, type Transaction } from '@/lib/datasets/storage/bulk-insert'
import { insertWithRollup, type StoredDataset } from '@/lib/datasets/storage/rollups'

// A dataset's own writer, typed by its table's insert type (each folder's store.ts makes one):
// callers hand it the table's rows and never name the dataset, its conflict columns or a row
// shape of the kit. Both ways add the rows to the rollup in the same statement and skip (and do
// not count) rows already stored.

export interface DatasetWriter<Row> {
  /** One statement, the rows as one JSON parameter (lib/datasets/storage/rollups.ts). Returns how many rows were new. */
  insert(db: Pick<Db, 'execute'>, rows: Row[]): Promise<number>
  /** Inside `tx`, through a staging table filled by COPY where the driver allows (lib/datasets/storage/bulk-insert.ts). */
  bulkInsert(tx: Transaction, rows: Row[]): Promise<number>
}

export function datasetWriter<T extends PgTable>(dataset: StoredDataset<T>): DatasetWriter<T['$inferInsert']> {
  return {
    insert: (db, rows) => insertWithRollup(db, dataset, rows),
    bulkInsert: (tx, rows) => bulkInsertWithRollup(tx, dataset, rows),
  }
}

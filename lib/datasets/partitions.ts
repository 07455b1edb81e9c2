import { config, type Config } from '@/lib/config'
import type { Db } from '@/lib/db/client'
import { DATASET_IDS, DATASETS, type DatasetId } from '@/lib/datasets/catalog'
import {
  createTablePartitions,
  dropExpiredTablePartitions,
  maintainTablePartitions,
  partitionedTablesOf,
  type MaintenanceResult,
} from '@/lib/datasets/storage/partitions'

// Day partitions of every dataset (lib/datasets/storage/partitions.ts does the work on the tables
// it is given) and the retention of each: QUERY_RETENTION_DAYS, checked at start-up.

/** Days of rows kept for a dataset: QUERY_RETENTION_DAYS (its own entry, else `*`), else the dataset's default. */
export function retentionDays(dataset: DatasetId, c: Pick<Config, 'QUERY_RETENTION_DAYS'> = config): number {
  return c.QUERY_RETENTION_DAYS[dataset] ?? c.QUERY_RETENTION_DAYS['*'] ?? DATASETS[dataset].retentionDays
}

/** Start-up check: every name in QUERY_RETENTION_DAYS is a dataset (the message names the variable). */
export function checkRetentionSetting(c: Pick<Config, 'QUERY_RETENTION_DAYS'> = config): void {
  const unknown = Object.keys(c.QUERY_RETENTION_DAYS).filter((name) => name !== '*' && !(name in DATASETS))
  if (unknown.length)
    throw new Error(`QUERY_RETENTION_DAYS: ${unknown.join(', ')}: each entry must be dataset=days with a dataset among ${Object.keys(DATASETS).join(', ')}`)
}

/** Every partitioned table: each dataset's rows and its rollup, with the dataset's retention. */
const partitionedTables = () =>
  DATASET_IDS.flatMap((dataset) => partitionedTablesOf(DATASETS[dataset]).map((table) => ({ ...table, retentionDays: retentionDays(dataset) })))

/** Creates the missing day partitions of a dataset (rows and rollup) for every day of [from, to]. */
export function createPartitions(db: Db, dataset: DatasetId, from: Date, to: Date): Promise<string[]> {
  return createTablePartitions(db, partitionedTablesOf(DATASETS[dataset]), from, to)
}

/** Creates every dataset's partitions of today and the next days, and drains the default partitions. */
export function maintainPartitions(db: Db, opts: { now?: Date; daysAhead?: number } = {}): Promise<MaintenanceResult> {
  return maintainTablePartitions(db, partitionedTables(), opts)
}

/**
 * Drops the day partitions whose whole day is older than the dataset's retention, rows and rollup
 * together. Returns the partitions dropped.
 */
export function dropExpiredPartitions(db: Db, opts: { now?: Date } = {}): Promise<string[]> {
  return dropExpiredTablePartitions(db, partitionedTables(), opts)
}

/** Both, in order: rows drained from a default partition into an expired day are dropped with it. */
export async function runPartitionMaintenance(db: Db, opts: { now?: Date } = {}): Promise<MaintenanceResult & { dropped: string[] }> {
  const maintained = await maintainPartitions(db, opts)
  return { ...maintained, dropped: await dropExpiredPartitions(db, opts) }
}

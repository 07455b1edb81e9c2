import {
  bigint,
  boolean,
  doublePrecision,
  inet,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  unique,
  type PgColumnBuilderBase,
} from 'drizzle-orm/pg-core'
import type { ColumnType, DatasetDef } from '@/lib/datasets/types'

// Column builders of the dataset tables (lib/datasets/<dataset>/tables.ts) and the rollup table
// derived from a dataset's rollup spec. One table per dataset; each dataset's definition describes the
// columns users may see and filter on (a unit test keeps the two in step). Column names are
// snake_case; the gateway tables map Logpush's PascalCase fields (QueryName → query_name).
//
// Every table has an identity `id` (a stable tie-break for paging, never exposed) and `demo`
// (rows written by `npm run db:seed`). Gateway tables carry `row_hash`, the SHA-256 of the
// ingested NDJSON line, so a re-delivered Logpush batch inserts nothing twice; request_log rows
// are unique by request id, so a replayed entry is not stored twice either.
//
// The five dataset tables and their rollups are partitioned by day on their time column
// (drizzle/0002_partitions.sql; lib/datasets/storage/partitions.ts creates and drops partitions). Postgres
// requires every primary key and unique constraint of a partitioned table to include the
// partition key, hence (time, id), (request_id, time) and (row_hash, datetime): the row hash
// covers the line's own timestamp, so the pair is as unique as the hash alone.

export const id = () => bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity()
export const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
export const demo = () => boolean('demo').notNull().default(false)
export const rowHash = () => text('row_hash')

// Per-minute and per-hour aggregates of each dataset, kept in step with its rows in the same
// statement that inserts them (lib/datasets/storage/rollups.ts). One row per (grain, bucket, dimension,
// value): `dimension` names the column it groups by ('' for the totals), that column holds the
// value and the other dimension columns are NULL. Latency datasets also group the totals by
// `duration_bucket`, a log-scale histogram bucket of the duration (2^(1/4) steps).

const DIMENSION_TYPES: Record<ColumnType, (name: string) => PgColumnBuilderBase> = {
  timestamp: (name) => at(name),
  text: (name) => text(name),
  integer: (name) => integer(name),
  bigint: (name) => bigint(name, { mode: 'number' }),
  number: (name) => doublePrecision(name),
  boolean: (name) => boolean(name),
  inet: (name) => inet(name),
  json: (name) => jsonb(name),
}

// One table object per definition: the dataset's tables.ts and the rollup reader (column types of
// lib/datasets/storage/rollups.ts) share it.
const rollupTables = new WeakMap<DatasetDef, ReturnType<typeof buildRollupTable>>()

export function rollupTable(dataset: DatasetDef) {
  let table = rollupTables.get(dataset)
  if (!table) rollupTables.set(dataset, (table = buildRollupTable(dataset)))
  return table
}

function buildRollupTable(dataset: DatasetDef) {
  const { dimensions, sums } = dataset.rollup
  const typeOf = (name: string) => dataset.columns.find((c) => c.name === name)!.type
  const latency = dataset.rollup.latency !== null
  const columns: Record<string, PgColumnBuilderBase> = {
    dimension: text('dimension').notNull(),
    grain: text('grain').notNull(),
    bucket: at('bucket').notNull(),
    ...Object.fromEntries(dimensions.map((name) => [name, DIMENSION_TYPES[typeOf(name)](name)])),
    ...(latency ? { duration_bucket: smallint('duration_bucket') } : {}),
    rows: bigint('rows', { mode: 'number' }).notNull(),
    ...(latency
      ? { server_errors: bigint('server_errors', { mode: 'number' }).notNull(), client_errors: bigint('client_errors', { mode: 'number' }).notNull() }
      : {}),
    ...Object.fromEntries(sums.map((name) => [name, bigint(name, { mode: 'number' }).notNull()])),
  }
  const name = `${dataset.table}_rollup`
  return pgTable(name, columns, (t) => {
    const key = ['dimension', 'grain', 'bucket', ...dimensions, ...(latency ? ['duration_bucket'] : [])].map((c) => t[c])
    return [
      unique(`${name}_key`)
        .on(...(key as [never, ...never[]]))
        .nullsNotDistinct(),
    ]
  })
}

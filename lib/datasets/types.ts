// The shape of a dataset definition (lib/datasets/<dataset>/definition.ts): what its table holds,
// the columns users may see and filter on, quick filters (in our filter dialect: a Postgres WHERE
// fragment), dashboard panels and what its rollup keeps. Pure data: the pages read it too.
//
// Column names are snake_case. Gateway columns name the Logpush field they are loaded from
// (`source`); list-valued Logpush fields (category names, resolved IPs…) are stored as one text
// value joined with ", ", so LIKE/ILIKE filters work on them.

export const COLUMN_TYPES = ['timestamp', 'text', 'integer', 'bigint', 'number', 'boolean', 'inet', 'json'] as const
export type ColumnType = (typeof COLUMN_TYPES)[number]

export interface ColumnDef {
  name: string
  type: ColumnType
  description: string
  /** Logpush field name (gateway datasets). */
  source?: string
  /** How values are shown: `bytes` as KB/MB/GB (the exact number stays in the cell's title). */
  unit?: 'bytes'
}

export interface QuickFilter {
  label: string
  filter: string
}

/** A count series may count only the rows where one column equals a value (runs by outcome). */
export type SeriesDef =
  | { key: string; label: string; aggregate: 'count'; where?: { column: string; equals: string | boolean } }
  | { key: string; label: string; aggregate: 'sum'; column: string }

export type PanelDef =
  | { id: string; kind: 'timeseries'; title: string; series: SeriesDef[]; unit?: 'bytes' }
  | { id: string; kind: 'breakdown'; title: string; column: string }
  | { id: string; kind: 'top'; title: string; column: string; limit: number }
  | { id: string; kind: 'latency'; title: string; column: string; errorStatusColumn: string }

export interface RollupDef {
  /** Columns grouped by: the breakdown and top panels' and series conditions', then low-cardinality filter columns. */
  dimensions: string[]
  /** Columns summed by time-series panels. */
  sums: string[]
  /** The latency histogram's duration column and the status column errors are counted from. */
  latency: { column: string; errorStatusColumn: string } | null
  /**
   * High-cardinality dimensions kept at the hour grain only, each hour's list capped at its
   * `topPerHour` largest values (the rest summed into one 'other' row): a top list read from them
   * is approximate once a value was left out, and a filter on them reads the rows.
   */
  hourOnly?: string[]
  /** The cap of each hour's list of an hourOnly dimension (per written batch). */
  topPerHour?: number
}

export interface DatasetDef {
  /** Its key in the catalog (lib/datasets/catalog.ts). */
  id: string
  label: string
  description: string
  table: string
  timeColumn: string
  columns: ColumnDef[]
  quickFilters: QuickFilter[]
  panels: PanelDef[]
  /** Days of rows kept (whole day partitions are dropped after that); QUERY_RETENTION_DAYS overrides it. */
  retentionDays: number
  /**
   * What the per-minute and per-hour rollup keeps (lib/datasets/storage/rollups.ts), written out
   * so that editing a panel never changes a table: a panel whose column is not a dimension (or a
   * sum) is answered from the rows instead (tests/unit/query-rollups.test.ts lists each dataset's).
   */
  rollup: RollupDef
  /** Who writes its real rows: Logpush ingest, the scheduled jobs or the API's own request log. */
  writtenBy: 'logpush' | 'jobs' | 'request-log'
  /** The Logpush dataset whose batches POST /query/ingest/{id} loads (columns map their `source` fields). */
  logpush?: string
  /** The embedded database's first start seeds demonstration rows of it (lib/datasets/demo.ts). */
  demoOnFirstStart?: boolean
  /**
   * Columns rows may be sorted by: the time column and the leading column of a full (not partial)
   * btree index, so a sorted page reads an index in order instead of sorting every row of the range.
   * tests/unit/query-sort.test.ts checks each one against the migrations.
   */
  sortColumns: string[]
  /** The text column the rows page offers patterns of first (lib/query/patterns.ts); else the first text column the rollup keeps. */
  patternColumn?: string
  /**
   * The rows that count as errors, in our filter dialect: what a saved view's "error rate"
   * condition divides by the row count (lib/alerts/job.ts). Absent: the dataset has no error rate.
   */
  errorFilter?: string
}

export const c = (name: string, type: ColumnType, description: string, source?: string): ColumnDef =>
  source ? { name, type, description, source } : { name, type, description }

export const demo = c('demo', 'boolean', 'True for generated demonstration rows (npm run db:seed).')
export const countOverTime: PanelDef = {
  id: 'count_over_time',
  kind: 'timeseries',
  title: 'Rows over time',
  series: [{ key: 'rows', label: 'Rows', aggregate: 'count' }],
}
export const top = (column: string, title: string): PanelDef => ({ id: `top_${column}`, kind: 'top', title, column, limit: 10 })
export const breakdown = (column: string, title: string): PanelDef => ({ id: `by_${column}`, kind: 'breakdown', title, column })

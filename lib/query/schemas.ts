import { z } from 'zod'
import { config } from '@/lib/config'
import { COLUMN_TYPES, DATASET_IDS } from '@/lib/datasets/catalog'
import { MAX_FILTER_LENGTH } from '@/lib/query/filter-limits'
import { SPLIT_TOP_DEFAULT, SPLIT_TOP_MAX } from '@/lib/view/compare'
import { isTimeZone } from '@/lib/view/time'

// Inputs and outputs of the query application's data functions (lib/query/service.ts), which
// validate with them for the /query/api routes and the pages alike. The application is internal,
// so they stay out of the public OpenAPI document; docs/query.md describes its routes.

const DAY_MS = 86_400_000
const ISO_DATE = z.iso.date()
const ISO_DATE_TIME = z.iso.datetime({ offset: true, local: true })

const DateInput = z
  .string()
  .refine(
    (v) => ISO_DATE.safeParse(v).success || ISO_DATE_TIME.safeParse(v).success,
    'must be an ISO 8601 date (2026-11-21) or date-time (2026-11-21T13:00:00Z)',
  )

/**
 * The time range a request covers: [from, to). A date-time `dateTo` is exclusive; a bare date
 * `dateTo` means the end of that day, so dateFrom=dateTo=2026-11-21 is that whole (UTC) day.
 * Date-times without an offset are read as UTC.
 */
const instant = (v: string) => new Date(ISO_DATE.safeParse(v).success || /[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`)

export function resolveRange(dateFrom: string, dateTo: string): { from: Date; to: Date } {
  const from = instant(dateFrom)
  const to = ISO_DATE.safeParse(dateTo).success ? new Date(instant(dateTo).getTime() + DAY_MS) : instant(dateTo)
  return { from, to }
}

const rangeFields = {
  dataset: z.enum(DATASET_IDS).meta({ description: 'Dataset to query (see GET /api/datasets).' }),
  dateFrom: DateInput.meta({
    description: 'Start of the range, inclusive. ISO 8601 date or date-time; no offset means UTC.',
    examples: ['2026-11-21', '2026-11-21T13:00:00Z'],
  }),
  dateTo: DateInput.meta({
    description: 'End of the range: a date-time is exclusive; a bare date includes that whole day (UTC).',
    examples: ['2026-11-21', '2026-11-21T14:00:00Z'],
  }),
  filter: z
    .string()
    .max(MAX_FILTER_LENGTH)
    .optional()
    .meta({
      description:
        'SQL WHERE fragment over the dataset’s columns, ANDed with the range. Allowed: columns, literals, comparisons, LIKE/ILIKE, IN lists, IS [NOT] NULL, BETWEEN, AND/OR/NOT, casts to basic types and a few pure functions.',
      examples: ["status >= 500 AND route LIKE '/api/dns%'"],
    }),
}

function checkRange(v: { dateFrom: string; dateTo: string }, ctx: z.RefinementCtx) {
  const { from, to } = resolveRange(v.dateFrom, v.dateTo)
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) return // reported by the field checks
  if (from.getTime() > instant(v.dateTo).getTime()) ctx.addIssue({ code: 'custom', path: ['dateTo'], message: 'must not be before dateFrom' })
  const max = config.QUERY_MAX_RANGE_DAYS
  if (to.getTime() - from.getTime() > max * DAY_MS)
    ctx.addIssue({ code: 'custom', path: ['dateTo'], message: `range is longer than ${max} days (QUERY_MAX_RANGE_DAYS)` })
}

/** A row's place in (time, id) order, to the microsecond: what `nextCursor` and `keys` hold. */
const RowKey = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z~\d{1,19}$/, 'must be a row key returned by an earlier page (nextCursor or keys)')

export const QueryRequest = z
  .object({
    ...rangeFields,
    limit: z.number().int().min(1).max(500).default(100).meta({ description: 'Rows per page, 1 to 500 (out of range is rejected, not clamped).' }),
    offset: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(0)
      .meta({ description: 'Rows to skip (paging); with a cursor, the position of the page’s first row, for display.' }),
    cursor: RowKey.optional().meta({
      description:
        'Keyset paging: the nextCursor of the previous page; rows come after it in (time, id) order, at the cost of page 1 however deep. Only with a sort by the time column.',
    }),
    sort: z
      .string()
      .max(64)
      .optional()
      .meta({
        description:
          'Column to sort by: the time column (the default) or another indexed column of the dataset (GET /query/api/datasets lists them as sortColumns). Ties are broken by time and id, in the same direction.',
        examples: ['duration_ms'],
      }),
    order: z
      .enum(['asc', 'desc'])
      .default('desc')
      .meta({ description: 'Sort direction; desc (newest first) by default. Nulls sort last ascending and first descending, as in Postgres.' }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'QueryRequest', description: 'A page of rows from one dataset over a time range, optionally filtered.' })
export type QueryRequest = z.input<typeof QueryRequest>

export const DashboardRequest = z
  .object(rangeFields)
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'DashboardRequest', description: 'The dashboard panels of one dataset over a time range, optionally filtered.' })
export type DashboardRequest = z.input<typeof DashboardRequest>

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

export const ExportRequest = z
  .object({
    ...rangeFields,
    format: z.enum(EXPORT_FORMATS).default('csv'),
    columns: z.array(z.string()).optional().meta({ description: 'Columns to export, in the dataset’s order; all when absent.' }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'ExportRequest', description: 'Every row of one dataset over a time range, optionally filtered, newest first, up to QUERY_EXPORT_MAX_ROWS.' })
export type ExportRequest = z.input<typeof ExportRequest>

const Statement = z
  .object({
    text: z.string().meta({ description: 'The SQL text, as sent to the database.' }),
    params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).meta({ description: 'Values bound to $1, $2…' }),
  })
  .meta({ id: 'QueryStatement', description: 'A statement exactly as it ran, with its parameters.' })

const Value = z.union([z.string(), z.number(), z.boolean(), z.null()])

export const QueryResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    columns: z.array(z.string()).meta({ description: 'Column names, in row order.' }),
    rows: z.array(z.record(z.string(), Value)).meta({ description: 'The page of rows, newest first. Timestamps are ISO 8601 UTC strings.' }),
    keys: z.array(z.string()).meta({ description: 'Each row’s key (its time to the microsecond and id), in row order: `at` of POST /query/api/context.' }),
    count: z.number().int().meta({
      description:
        'Rows matching the range and filter in total (not only this page): exact up to QUERY_EXACT_COUNT_LIMIT or when read from the rollup, else the planner’s estimate (countExact false).',
    }),
    countExact: z.boolean().meta({ description: 'False when count is an estimate (“about 3.2 M”).' }),
    limit: z.number().int(),
    offset: z.number().int(),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next page; null on the last page, and when sorted by a column other than time (page with offset then).' }),
    sort: z.object({ column: z.string(), order: z.enum(['asc', 'desc']) }).meta({ description: 'The order the rows are in.' }),
    range: z.object({ from: z.string(), to: z.string() }).meta({ description: 'The resolved range [from, to).' }),
    filter: z.string().nullable().meta({ description: 'The filter as run: regenerated from the checked parse tree.' }),
    elapsedMs: z.number().meta({ description: 'Time spent in the database, ms.' }),
    sql: Statement.meta({ description: 'The statement that returned the rows.' }),
    countSql: Statement.meta({ description: 'The statement that counted the matching rows (from the rollup, or capped at QUERY_EXACT_COUNT_LIMIT + 1).' }),
    estimateSql: Statement.optional().meta({ description: 'When the count is an estimate: the EXPLAIN whose row estimate it is.' }),
  })
  .meta({ id: 'QueryResult' })
export type QueryResult = z.infer<typeof QueryResult>

export const CONTEXT_ROWS_MAX = 100

export const ContextRequest = z
  .object({
    dataset: rangeFields.dataset,
    at: RowKey.meta({ description: 'The row to show in context: one of `keys` of a page of rows.' }),
    filter: rangeFields.filter,
    rows: z
      .number()
      .int()
      .min(1)
      .max(CONTEXT_ROWS_MAX)
      .default(10)
      .meta({ description: `Rows on each side of it, 1 to ${CONTEXT_ROWS_MAX}: that many newer and that many older (fewer at either end).` }),
  })
  .strict()
  .meta({ id: 'ContextRequest', description: 'The rows just before and after one row in (time, id) order, optionally only those matching a filter.' })
export type ContextRequest = z.input<typeof ContextRequest>

export const ContextResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    at: z.string(),
    columns: z.array(z.string()),
    rows: z.array(z.record(z.string(), Value)).meta({ description: 'Newer rows, the row itself, then older rows: newest first, as on a page.' }),
    keys: z.array(z.string()),
    anchor: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Index of the row itself in `rows`; null when it is gone (retention) or does not match the filter.' }),
    newer: z.number().int().meta({ description: 'Rows newer than it returned.' }),
    older: z.number().int().meta({ description: 'Rows older than it returned.' }),
    window: z.object({ from: z.string(), to: z.string() }).meta({ description: 'How far the search reached on each side (QUERY_MAX_RANGE_DAYS).' }),
    filter: z.string().nullable(),
    sql: z.array(Statement).meta({ description: 'The two statements: newer rows, then the row and older ones.' }),
    elapsedMs: z.number(),
  })
  .meta({ id: 'ContextResult' })
export type ContextResult = z.infer<typeof ContextResult>

const PanelStatement = Statement.meta({ description: 'The statement this panel ran, with its parameters.' })
const PanelSource = z.enum(['rollup', 'rows']).meta({
  description:
    'What the panel read: the per-minute/per-hour rollup (with the rows of the partial minutes at the range’s edges), or the raw rows (a filter the rollup cannot answer).',
})

const TimeseriesPanel = z.object({
  id: z.string(),
  sql: PanelStatement,
  source: PanelSource,
  kind: z.literal('timeseries'),
  title: z.string(),
  bucketSeconds: z.number().int(),
  buckets: z.array(z.string()).meta({ description: 'Bucket start times (ISO 8601), every bucket of the range including empty ones.' }),
  series: z.array(z.object({ key: z.string(), label: z.string(), values: z.array(z.number()) })),
})
const CountsPanel = z.object({
  id: z.string(),
  sql: PanelStatement,
  source: PanelSource,
  kind: z.enum(['breakdown', 'top']),
  title: z.string(),
  column: z.string(),
  rows: z.array(z.object({ value: Value, count: z.number().int() })),
  approximate: z.literal(true).optional().meta({
    description:
      'Present when the list was read from a rollup whose per-hour lists are capped and left values out: counts are lower bounds and a value may be missing.',
  }),
})
const LatencyPanel = z.object({
  id: z.string(),
  sql: PanelStatement,
  source: PanelSource,
  kind: z.literal('latency'),
  title: z.string(),
  count: z.number().int(),
  p50Ms: z.number().nullable().meta({ description: 'Median duration: exact from rows; from the rollup’s histogram within 18.9 % + 1 ms.' }),
  p95Ms: z.number().nullable(),
  errorRate: z.number().nullable().meta({ description: 'Share of responses with status ≥ 500 (0 to 1), exact (not rounded).' }),
  clientErrorRate: z.number().nullable().meta({ description: 'Share of responses with status 400–499 (0 to 1), exact (not rounded).' }),
})
export const DashboardPanel = z.discriminatedUnion('kind', [TimeseriesPanel, CountsPanel, LatencyPanel]).meta({ id: 'DashboardPanel' })
export type DashboardPanel = z.infer<typeof DashboardPanel>

export const DashboardResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    range: z.object({ from: z.string(), to: z.string() }),
    filter: z.string().nullable(),
    panels: z.array(DashboardPanel),
    elapsedMs: z.number().meta({ description: 'Wall time for all panels (they run concurrently), ms.' }),
  })
  .meta({ id: 'DashboardResult' })
export type DashboardResult = z.infer<typeof DashboardResult>

const PanelDefinition = z.object({ id: z.string(), kind: z.enum(['timeseries', 'breakdown', 'top', 'latency']), title: z.string() }).loose()

export const DatasetInfo = z
  .object({
    id: z.enum(DATASET_IDS),
    label: z.string(),
    description: z.string(),
    timeColumn: z.string(),
    columns: z.array(
      z.object({ name: z.string(), type: z.enum(COLUMN_TYPES), description: z.string(), source: z.string().optional(), unit: z.literal('bytes').optional() }),
    ),
    quickFilters: z.array(z.object({ label: z.string(), filter: z.string() })),
    panels: z.array(PanelDefinition),
    retentionDays: z.number().int().meta({ description: 'Days of rows kept (QUERY_RETENTION_DAYS); older days are dropped whole.' }),
    sortColumns: z.array(z.string()).meta({ description: 'Columns rows may be sorted by (indexed ones), the time column first.' }),
  })
  .meta({ id: 'DatasetInfo' })

export const DatasetList = z
  .object({
    datasets: z.array(DatasetInfo),
    maxRangeDays: z.number().int().meta({ description: 'Longest date range a request may cover (QUERY_MAX_RANGE_DAYS).' }),
    limits: z.object({
      minLimit: z.number().int(),
      maxLimit: z.number().int(),
      defaultLimit: z.number().int(),
      statementTimeoutMs: z.number().int(),
      exactCountLimit: z.number().int().meta({ description: 'Counts above this are estimates (QUERY_EXACT_COUNT_LIMIT).' }),
    }),
  })
  .meta({ id: 'DatasetList' })
export type DatasetList = z.infer<typeof DatasetList>

// Compare with an earlier window and split by a column (lib/query/compare.ts, lib/query/split.ts).

export const CompareRequest = z
  .object({
    ...rangeFields,
    compare: z
      .enum(['previous', 'day', 'week'])
      .meta({ description: 'The baseline: the period just before (same length), or the same window a day or a week earlier.' }),
    columns: z
      .array(z.string().max(64))
      .max(32)
      .optional()
      .meta({ description: 'Categorical columns to compare (the dataset’s rollup dimensions); all of them when absent.' }),
    top: z.number().int().min(1).max(20).default(5).meta({ description: 'Values per column: those whose share moved most.' }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'CompareRequest', description: 'A range and its baseline window: both histograms and, per column, the values whose share moved most.' })
export type CompareRequest = z.input<typeof CompareRequest>

const Window = z.object({ from: z.string(), to: z.string() })

export const CompareResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    compare: z.enum(['previous', 'day', 'week']),
    range: Window,
    baselineRange: Window.meta({ description: 'The baseline window [from, to).' }),
    shiftMs: z.number().int().meta({ description: 'How far the baseline lies before the range, ms.' }),
    filter: z.string().nullable(),
    histogram: z.any().meta({ description: 'The range’s histogram (as the rows page’s).' }),
    baseline: z
      .any()
      .meta({ description: 'The baseline window’s histogram; bucket i sits shiftMs before the range’s bucket i when shiftMs is whole buckets.' }),
    changes: z.array(
      z.object({
        column: z.string(),
        source: z.enum(['rollup', 'rows']),
        sampled: z.boolean().meta({ description: 'True when either window was read from its newest rows only (a filter the rollup cannot answer).' }),
        currentTotal: z.number(),
        baselineTotal: z.number(),
        values: z.array(
          z.object({
            value: z.string().nullable(),
            current: z.number(),
            baseline: z.number(),
            currentShare: z.number(),
            baselineShare: z.number(),
            delta: z.number().meta({ description: 'currentShare − baselineShare.' }),
          }),
        ),
        sql: Statement,
      }),
    ),
    elapsedMs: z.number(),
  })
  .meta({ id: 'CompareResult' })
export type CompareResult = z.infer<typeof CompareResult>

export const SplitRequest = z
  .object({
    ...rangeFields,
    split: z.string().max(80).meta({ description: 'Column to stack by: a rollup dimension, or `status_class` (2xx…5xx).' }),
    top: z
      .number()
      .int()
      .min(1)
      .max(SPLIT_TOP_MAX)
      .default(SPLIT_TOP_DEFAULT)
      .meta({ description: 'Values kept as their own series; the rest are summed as “other”.' }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'SplitRequest', description: 'Rows per time bucket stacked by the top values of one column.' })
export type SplitRequest = z.input<typeof SplitRequest>

export const SplitResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    split: z.string(),
    column: z.string(),
    top: z.number().int(),
    range: Window,
    filter: z.string().nullable(),
    source: PanelSource,
    bucketSeconds: z.number().int(),
    buckets: z.array(z.string()),
    series: z.array(z.object({ key: z.string(), label: z.string(), values: z.array(z.number()), total: z.number() })),
    total: z.number(),
    elapsedMs: z.number(),
    sql: Statement,
  })
  .meta({ id: 'SplitResult' })
export type SplitResult = z.infer<typeof SplitResult>
// Facets and group-by (lib/query/facets.ts, lib/query/group-by.ts) -------------------------------

export const FacetsRequest = z
  .object({
    ...rangeFields,
    values: z.number().int().min(1).max(20).default(5).meta({ description: 'Top values per column, 1 to 20.' }),
    exact: z.boolean().default(false).meta({
      description:
        'Count the columns the rollup cannot answer over every matching row of the range instead of the newest ones (slower; the usual statement timeout applies).',
    }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'FacetsRequest', description: 'The top values of each categorical column of one dataset over a time range, optionally filtered.' })
export type FacetsRequest = z.input<typeof FacetsRequest>

const FacetSource = z
  .enum(['rollup', 'sample'])
  .meta({ description: 'rollup: exact counts over the whole range; sample: counts within the newest rows of the range (see `sample`).' })

export const FacetsResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    range: z.object({ from: z.string(), to: z.string() }),
    filter: z.string().nullable(),
    facets: z.array(
      z.object({
        column: z.string(),
        source: FacetSource,
        total: z.number().int().meta({ description: 'Rows the counts are out of: every matching row (rollup) or the rows of the sample.' }),
        distinct: z.number().int().meta({ description: 'Distinct values among those rows (text longer than the rollup keeps groups by its prefix).' }),
        values: z.array(z.object({ value: Value, count: z.number().int(), share: z.number().meta({ description: 'count / total, 0 to 1, not rounded.' }) })),
      }),
    ),
    sample: z
      .object({
        limit: z.number().int().nullable().meta({ description: 'Rows the sample is capped at; null when counted exactly (`exact`).' }),
        rows: z.number().int(),
        complete: z.boolean().meta({ description: 'True when the “sample” is every matching row: the range held fewer than the limit, or `exact` was asked.' }),
        matching: z
          .number()
          .int()
          .nullable()
          .meta({ description: 'Every matching row of the range (what a partial sample is out of); null when counting them ran out of time.' }),
      })
      .nullable()
      .meta({
        description:
          'The newest `limit` matching rows of the range, read for the columns the rollup cannot answer under this filter; null when the rollup answered every column.',
      }),
    statements: z.array(z.object({ label: z.string(), sql: Statement })),
    elapsedMs: z.number(),
  })
  .meta({ id: 'FacetsResult' })
export type FacetsResult = z.infer<typeof FacetsResult>

// Patterns (lib/query/patterns.ts): a text column's values clustered into templates.

export const PATTERNS_LIMIT_MAX = 50

export const PatternsRequest = z
  .object({
    ...rangeFields,
    column: z.string().max(64).meta({ description: 'The text column whose values are clustered (GET /query/api/datasets: columns of type text).' }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(PATTERNS_LIMIT_MAX)
      .default(10)
      .meta({ description: `Templates returned, the most frequent first, 1 to ${PATTERNS_LIMIT_MAX}.` }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({
    id: 'PatternsRequest',
    description: 'The values of one text column over the newest matching rows of a range, clustered into templates (numbers, ids, addresses… replaced).',
  })
export type PatternsRequest = z.input<typeof PatternsRequest>

export const PatternsResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    column: z.string(),
    range: z.object({ from: z.string(), to: z.string() }),
    filter: z.string().nullable(),
    patterns: z.array(
      z.object({
        template: z
          .string()
          .nullable()
          .meta({ description: 'The value with its variable parts replaced by <uuid>, <ip>, <hex>, <time>, <num> and <id>; null for rows without a value.' }),
        count: z.number().int().meta({ description: 'Rows of the sample with this template.' }),
        share: z.number().meta({ description: 'count / sample rows, 0 to 1, not rounded.' }),
        example: z.string().nullable().meta({ description: 'One value with this template (the smallest).' }),
        filter: z.string().nullable().meta({
          description:
            'A filter clause selecting its rows: `"column" LIKE …` with each placeholder as % (a little broader than the template), or IS NULL; null when it would be longer than a filter may be.',
        }),
      }),
    ),
    templates: z.number().int().meta({ description: 'Distinct templates in the sample (the list holds the `limit` most frequent).' }),
    sample: z.object({
      limit: z.number().int().meta({ description: 'Rows the sample is capped at: the newest matching rows of the range.' }),
      rows: z.number().int().meta({ description: 'Rows in the sample.' }),
      matching: z
        .number()
        .int()
        .nullable()
        .meta({ description: 'Every matching row of the range (rows when the sample holds them all); null when counting them ran out of time.' }),
    }),
    statements: z.array(z.object({ label: z.string(), sql: Statement })),
    elapsedMs: z.number(),
  })
  .meta({ id: 'PatternsResult' })
export type PatternsResult = z.infer<typeof PatternsResult>

export const GROUP_SORTS = ['count', 'error_rate', 'errors', 'p50', 'p95', 'first_seen', 'last_seen', 'value'] as const

export const GROUP_PERIODS = ['hour', 'day'] as const

export const GroupByRequest = z
  .object({
    ...rangeFields,
    by: z
      .array(z.string().max(64))
      .min(1)
      .max(2)
      .meta({ description: 'One or two columns to group by (any column but the time column and JSON ones).', examples: [['route'], ['route', 'status']] }),
    sort: z
      .string()
      .max(64)
      .default('count')
      .meta({ description: `Measure to sort groups by: ${GROUP_SORTS.join(', ')}, or a summed column (bytes_sent, bytes_received for sessions).` }),
    order: z.enum(['asc', 'desc']).default('desc'),
    limit: z.number().int().min(1).max(200).default(50).meta({ description: 'Groups returned, 1 to 200 (the largest by the sort).' }),
    rows: z.boolean().default(false).meta({ description: 'Read the rows even where the rollup could answer (to get per-group percentiles).' }),
    every: z.enum(GROUP_PERIODS).optional().meta({
      description:
        'Split each group per hour or per day: the first value of each group is then the start of its period (ISO 8601, UTC instant; periods are cut in `timeZone`), groups are ordered by period ascending, then by the sort, and `limit` applies to the (period, group) rows.',
    }),
    timeZone: z
      .string()
      .max(64)
      .refine(isTimeZone, { message: 'not an IANA time zone name' })
      .default('UTC')
      .meta({
        description: 'IANA time zone the periods of `every` are cut in (day periods start at local midnight); UTC by default.',
        examples: ['Europe/Berlin'],
      }),
  })
  .strict()
  .superRefine(checkRange)
  .meta({ id: 'GroupByRequest', description: 'Aggregates of one dataset over a range and filter, grouped by one or two columns.' })
export type GroupByRequest = z.input<typeof GroupByRequest>

/** When a group was first or last seen in the range: exact from the rows; from the rollup, the start of the minute or hour it fell in. */
const SeenAt = z
  .object({ at: z.string(), within: z.enum(['exact', 'minute', 'hour']) })
  .meta({ description: '`at`: the row time (`exact`) or the start of the minute or hour that holds it (from the rollup).' })

export const GroupByResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    range: z.object({ from: z.string(), to: z.string() }),
    filter: z.string().nullable(),
    by: z.array(z.string()),
    every: z.enum(GROUP_PERIODS).nullable().meta({ description: 'The period each group is split by (its first value is the period start), or null.' }),
    timeZone: z.string().meta({ description: 'The time zone periods are cut in.' }),
    source: z.enum(['rollup', 'rows']),
    measures: z.object({
      errors: z
        .object({ label: z.string(), condition: z.string() })
        .nullable()
        .meta({ description: 'What counts as an error in this dataset, when anything does.' }),
      duration: z.string().nullable().meta({ description: 'The duration column p50/p95 are of, when the dataset has one.' }),
      sums: z.array(z.string()).meta({ description: 'Columns summed per group (bytes for sessions).' }),
    }),
    omitted: z.array(z.string()).meta({ description: 'Measures the rollup cannot give per group (read with rows: true).' }),
    groups: z.array(
      z.object({
        values: z.array(Value),
        count: z.number().int(),
        errors: z.number().int().nullable(),
        errorRate: z.number().nullable(),
        p50: z.number().nullable(),
        p95: z.number().nullable(),
        sums: z.record(z.string(), z.number()),
        firstSeen: SeenAt.nullable(),
        lastSeen: SeenAt.nullable(),
      }),
    ),
    groupCount: z.number().int().meta({ description: 'Groups in total (before the limit); with `every`, (period, group) rows.' }),
    total: z.number().int().meta({ description: 'Matching rows in total (all groups).' }),
    sort: z.string(),
    order: z.enum(['asc', 'desc']),
    limit: z.number().int(),
    sql: Statement,
    elapsedMs: z.number(),
  })
  .meta({ id: 'GroupByResult' })
export type GroupByResult = z.infer<typeof GroupByResult>

// Live tail (lib/query/tail.ts) ---------------------------------------------------------------

/** A tail cursor: the lowest time the next answer reads from, and the last row id already shown. */
export const TAIL_CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)~(\d{1,19})$/

export const TailRequest = z
  .object({
    dataset: rangeFields.dataset,
    filter: rangeFields.filter,
    since: z.string().regex(TAIL_CURSOR, 'must be the cursor of an earlier tail answer').optional().meta({
      description: 'The cursor of the previous answer: only rows written after it come back. Absent: the newest rows of the last hour, to start from.',
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(100)
      .meta({ description: 'Rows per answer, 1 to 200: when more arrived, the newest come back and `skipped` counts the rest.' }),
  })
  .strict()
  .meta({ id: 'TailRequest', description: 'The rows of one dataset written since a cursor, optionally filtered (a live tail polls this).' })
export type TailRequest = z.input<typeof TailRequest>

export const TailResult = z
  .object({
    dataset: z.enum(DATASET_IDS),
    columns: z.array(z.string()),
    rows: z.array(z.record(z.string(), Value)).meta({ description: 'The rows written since the cursor, in the order they were written (oldest first).' }),
    skipped: z.number().int().meta({ description: 'Rows that arrived since the cursor but were left out to keep to the limit (the oldest of them).' }),
    cursor: z.string().meta({ description: 'Pass as `since` in the next request.' }),
    filter: z.string().nullable(),
    elapsedMs: z.number(),
    sql: Statement,
  })
  .meta({ id: 'TailResult' })
export type TailResult = z.infer<typeof TailResult>

import 'server-only'
import { sql, type SQL } from 'drizzle-orm'
import { getDataset, type DatasetDef, type DatasetId } from '@/lib/datasets/catalog'
import { AppError } from '@/lib/errors'
import { checkFilter } from '@/lib/query/filter'
import { MAX_FILTER_LENGTH } from '@/lib/query/filter-limits'
import { PatternsRequest, resolveRange, type PatternsResult } from '@/lib/query/schemas'
import { parse, readOnly, statement, whereSql, type ExecOptions } from '@/lib/query/service'

// Patterns: the values of one text column clustered into templates, as log tools do: each value's
// variable parts are replaced by placeholders with regexp_replace, in the database, and the rows
// are counted per template. Deterministic (no model): the same rows give the same templates.
// Over a bounded sample like the facets' (the newest PATTERN_SAMPLE_ROWS matching rows of the
// range, read backwards along the time index), in one statement shown like every panel's.

export const PATTERN_SAMPLE_ROWS = 10_000

/**
 * The replacements, in order (Postgres advanced regular expressions; lookbehind needs Postgres 9.6,
 * PGlite has it too). Only bracket expressions, no class escapes such as \d or \w, whose meaning
 * could differ between builds. A "boundary" is a character that is not a letter, a digit or `_`:
 *
 * - `<uuid>`: 8-4-4-4-12 hex digits.
 * - `<ip>`: an IPv6 address (full, or compressed with `::`), then a dotted IPv4 address.
 * - `<hex>`: a run of 8 or more hex digits holding both a digit and a letter a–f (a run of digits
 *   alone is a number; a word of the letters a–f alone, such as `deadbeef`, stays).
 * - `<time>`: an ISO 8601 date with an optional time and offset, or a time of day hh:mm:ss.
 * - `<num>`: a number (digits, with dotted parts: 42, 3.14, 1.2.3) standing alone: not touching a
 *   letter, a digit or `_` on either side, so `/users/123` and `page=2` vary but `v2`, `a1b2`,
 *   `http2` and `150ms` stay as they are.
 * - `<id>`: a token of 20 or more of [A-Za-z0-9_-] holding at least one digit (what is left of
 *   session ids, API keys, base64 and the like); a long word or slug without digits stays.
 */
export const PATTERN_REPLACEMENTS: ReadonlyArray<{ placeholder: string; regex: string }> = [
  { placeholder: '<uuid>', regex: '(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z])' },
  {
    placeholder: '<ip>',
    regex:
      '(?<![0-9A-Za-z:.])(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|([0-9a-fA-F]{1,4}(:[0-9a-fA-F]{1,4}){0,6})?::([0-9a-fA-F]{1,4}(:[0-9a-fA-F]{1,4}){0,6})?)(?![0-9A-Za-z:.])',
  },
  { placeholder: '<ip>', regex: '(?<![0-9A-Za-z.])[0-9]{1,3}(\\.[0-9]{1,3}){3}(?![0-9A-Za-z]|\\.[0-9])' },
  { placeholder: '<hex>', regex: '(?<![0-9A-Za-z])(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]{8,}(?![0-9A-Za-z])' },
  {
    placeholder: '<time>',
    regex: '(?<![0-9])[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?(?![0-9])',
  },
  { placeholder: '<time>', regex: '(?<![0-9:])[0-9]{2}:[0-9]{2}:[0-9]{2}([.,][0-9]+)?(?![0-9:])' },
  { placeholder: '<num>', regex: '(?<![A-Za-z0-9_.])[0-9]+(\\.[0-9]+)*(?![A-Za-z0-9_]|\\.[A-Za-z0-9_])' },
  { placeholder: '<id>', regex: '(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])' },
]

const PLACEHOLDER = /<(?:uuid|ip|hex|time|num|id)>/

const id = (name: string) => sql.identifier(name)
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

/** The text columns of a dataset: the ones patterns can be asked for. */
export function patternColumns(dataset: DatasetDef): string[] {
  return dataset.columns.filter((c) => c.type === 'text').map((c) => c.name)
}

/** The column the rows page offers first: the dataset's own choice, else the first text column its rollup keeps, else its first text column. */
export function defaultPatternColumn(dataset: DatasetDef): string | null {
  const texts = patternColumns(dataset)
  if (dataset.patternColumn && texts.includes(dataset.patternColumn)) return dataset.patternColumn
  return texts.find((c) => dataset.rollup.dimensions.includes(c)) ?? texts[0] ?? null
}

/** The SQL expression that turns a value into its template. */
function templateSql(value: SQL): SQL {
  return PATTERN_REPLACEMENTS.reduce((inner, r) => sql`regexp_replace(${inner}, ${r.regex}, ${r.placeholder}, 'g')`, value)
}

/**
 * A filter clause selecting a template's rows: `"column" LIKE '…'` with each placeholder as `%` and
 * `%`, `_` and `\` of the literal parts escaped; a little broader than the template (a `%` matches
 * anything, not only what the placeholder stood for). `IS NULL` for rows without a value; null when
 * the clause would be longer than a filter may be.
 */
export function patternClause(column: string, template: string | null): string | null {
  if (template === null) return `${quoteIdent(column)} IS NULL`
  const like = template
    .split(PLACEHOLDER)
    .map((part) => part.replace(/[\\%_]/g, (ch) => `\\${ch}`))
    .join('%')
  const clause = `${quoteIdent(column)} LIKE '${like.replace(/'/g, "''")}'`
  return clause.length > MAX_FILTER_LENGTH ? null : clause
}

export async function runPatterns(input: PatternsRequest, opts: ExecOptions = {}): Promise<PatternsResult> {
  const req = parse(PatternsRequest, input)
  const dataset = getDataset(req.dataset)
  const allowed = patternColumns(dataset)
  if (!allowed.includes(req.column))
    throw new AppError('invalid_input', `column: ${JSON.stringify(req.column)} is not a text column of ${dataset.id}; patterns are for ${allowed.join(', ')}`)
  const { from, to } = resolveRange(req.dateFrom, req.dateTo)
  const filter = await checkFilter(req.filter, dataset)
  const where = whereSql(dataset, from, to, filter.sql)

  const query = sql`WITH "sample" AS MATERIALIZED (SELECT ${id(req.column)} AS "value" FROM ${id(dataset.table)} WHERE ${where} ORDER BY ${id(dataset.timeColumn)} DESC LIMIT ${PATTERN_SAMPLE_ROWS}),
"templated" AS (SELECT "value", ${templateSql(sql`"value"`)} AS "template" FROM "sample")
SELECT "template", count(*)::bigint AS "count", min("value" COLLATE "C") AS "example", (sum(count(*)) OVER ())::bigint AS "rows", (count(*) OVER ())::bigint AS "templates"
FROM "templated" GROUP BY "template" ORDER BY 2 DESC, "template" COLLATE "C" NULLS LAST LIMIT ${req.limit}`
  const countQuery = sql`SELECT count(*)::bigint AS "count" FROM ${id(dataset.table)} WHERE ${where}`

  const started = performance.now()
  const rows = await readOnly(opts, (session) => session.execute(query))
  const elapsedMs = Math.round((performance.now() - started) * 100) / 100
  const sampleRows = Number(rows[0]?.rows ?? 0)
  const complete = sampleRows < PATTERN_SAMPLE_ROWS
  // A full sample says what it is out of; a count that runs out of time leaves it unknown rather than failing the patterns.
  let matching: number | null = sampleRows
  if (!complete) {
    try {
      matching = Number((await readOnly(opts, (session) => session.execute(countQuery)))[0]?.count ?? 0)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      matching = null
    }
  }
  return {
    dataset: req.dataset,
    column: req.column,
    range: { from: from.toISOString(), to: to.toISOString() },
    filter: filter.sql,
    patterns: rows.map((r) => {
      const template = r.template === null ? null : String(r.template)
      const count = Number(r.count)
      return {
        template,
        count,
        share: sampleRows ? count / sampleRows : 0,
        example: r.example === null ? null : String(r.example),
        filter: patternClause(req.column, template),
      }
    }),
    templates: Number(rows[0]?.templates ?? 0),
    sample: { limit: PATTERN_SAMPLE_ROWS, rows: sampleRows, matching },
    statements: [
      { label: `Patterns of ${req.column} in the newest ${PATTERN_SAMPLE_ROWS.toLocaleString('en')} matching rows`, sql: statement(query) },
      ...(complete ? [] : [{ label: 'Matching rows of the range', sql: statement(countQuery) }]),
    ],
    elapsedMs,
  }
}

/** How many of the rows before a window a new pattern is looked for in (the newest of them). */
export const NEW_PATTERN_HISTORY_ROWS = 50_000

/**
 * The templates of `column` among the newest PATTERN_SAMPLE_ROWS rows of [from, to) under a filter
 * that none of the newest NEW_PATTERN_HISTORY_ROWS rows of [since, from) had: what the "new
 * pattern" alert counts. One statement; a template seen only in older rows than that counts as new.
 */
export async function newPatterns(
  input: { dataset: DatasetId; column: string; filter?: string; from: Date; to: Date; since: Date },
  opts: ExecOptions = {},
): Promise<{ templates: string[]; sql: ReturnType<typeof statement> }> {
  const dataset = getDataset(input.dataset)
  if (!patternColumns(dataset).includes(input.column))
    throw new AppError('invalid_input', `patternColumn: ${JSON.stringify(input.column)} is not a text column of ${dataset.id}`)
  const filter = await checkFilter(input.filter, dataset)
  const sample = (from: Date, to: Date, limit: number) =>
    sql`SELECT ${id(input.column)} AS "value" FROM ${id(dataset.table)} WHERE ${whereSql(dataset, from, to, filter.sql)} ORDER BY ${id(dataset.timeColumn)} DESC LIMIT ${limit}`
  const query = sql`WITH "now" AS MATERIALIZED (${sample(input.from, input.to, PATTERN_SAMPLE_ROWS)}),
"before" AS MATERIALIZED (${sample(input.since, input.from, NEW_PATTERN_HISTORY_ROWS)}),
"seen" AS (SELECT DISTINCT ${templateSql(sql`"value"`)} AS "template" FROM "before" WHERE "value" IS NOT NULL)
SELECT DISTINCT ${templateSql(sql`"value"`)} AS "template" FROM "now" WHERE "value" IS NOT NULL
EXCEPT SELECT "template" FROM "seen" ORDER BY 1 LIMIT 100`
  const rows = await readOnly(opts, (session) => session.execute(query))
  return { templates: rows.map((r) => String(r.template)).sort(), sql: statement(query) }
}

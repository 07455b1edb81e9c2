import type { ColumnDef } from '@/lib/datasets/catalog'

// Click to filter: a table cell, a row-detail field or a dashboard entry adds `column = value`
// (or `!=`) to the filter, written in the filter dialect itself. Nothing here is trusted: the
// resulting filter goes through the URL to the same checker as a typed one (lib/query/filter.ts).
// Pure: the browser builds these too.

export type CellValue = string | number | boolean | null
export type FilterOp = '=' | '!='

/** Timestamps are never equal to a value shown to the millisecond; narrow the range instead. */
export function canFilterBy(column: Pick<ColumnDef, 'type'>): boolean {
  return column.type !== 'timestamp'
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`
const quoteText = (text: string) => `'${text.replace(/'/g, "''")}'`

/** `"status" = 404`, `"email" != 'ana@example.com'`, `"mcp_tool" IS NULL`. */
export function valueClause(column: Pick<ColumnDef, 'name' | 'type'>, value: CellValue, op: FilterOp = '='): string {
  const name = quoteIdent(column.name)
  if (value === null) return `${name} ${op === '=' ? 'IS NULL' : 'IS NOT NULL'}`
  const literal =
    typeof value === 'boolean'
      ? String(value)
      : typeof value === 'number' && Number.isFinite(value) && column.type !== 'text' && column.type !== 'inet'
        ? String(value)
        : quoteText(String(value))
  return `${name} ${op} ${literal}`
}

/** The current filter narrowed by one more clause (an OR in it is kept together in parentheses). */
export function addClause(current: string, clause: string): string {
  const text = current.trim()
  if (!text) return clause
  return /\bor\b/i.test(text) ? `(${text}) AND ${clause}` : `${text} AND ${clause}`
}

/** Longest search text: the clause repeats it once per text column and must stay within the filter's length limit. */
export const SEARCH_TEXT_MAX = 100

/**
 * Free-text search as a filter clause: `("route" ILIKE '%text%' OR "user_agent" ILIKE '%text%' …)`
 * over the dataset's text columns, with `%`, `_` and `\` in the text matched literally. Null when the
 * dataset has no text column or the text is empty.
 */
export function searchClause(columns: ReadonlyArray<Pick<ColumnDef, 'name' | 'type'>>, text: string): string | null {
  const needle = text.trim().slice(0, SEARCH_TEXT_MAX)
  const texts = columns.filter((c) => c.type === 'text')
  if (!needle || !texts.length) return null
  const pattern = quoteText(`%${needle.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`)
  return `(${texts.map((c) => `${quoteIdent(c.name)} ILIKE ${pattern}`).join(' OR ')})`
}

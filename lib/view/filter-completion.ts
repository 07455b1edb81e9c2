// Completion in the filter box (components/query/filter-box-client.tsx): the column names that
// complete the word at the caret, and after `column =` (or `!=`, `<>`) the column's frequent values
// that contain what is typed, as literals of the filter dialect. Pure: the browser runs it.

export interface ColumnHint {
  name: string
  type: string
}

const MAX_SUGGESTIONS = 8
const WORD_BEFORE_CARET = /[A-Za-z_][A-Za-z0-9_]*$/

export type Value = string | number | boolean | null

export interface Option {
  /** What the list shows. */
  label: string
  /** What taking it writes in place of [start, end). */
  insert: string
  /** The column's type, or how often the value occurs. */
  note: string
}

export interface Completion {
  /** `columns`: a column name; else the column whose values are offered. */
  of: 'columns' | string
  start: number
  end: number
  options: Option[]
}

/** Top values per column (the facets of the page's range), for completing `column = ` in the filter. */
export type ValueHints = Record<string, Array<{ value: Value; count: number }>>

const QUOTED = new Set(['text', 'inet', 'timestamp'])
// `column = 'partial` or `"column" != partial` at the caret.
const VALUE_BEFORE_CARET = /(?:"([A-Za-z_][A-Za-z0-9_]*)"|\b([A-Za-z_][A-Za-z0-9_]*))\s*(?:=|!=|<>)\s*(?:'((?:[^']|'')*)|([^\s')]*))$/

/** Values of the column being compared at the caret whose text contains what is typed so far. */
function valueCompletion(text: string, caret: number, columns: ColumnHint[], values: ValueHints): Completion | null {
  const m = VALUE_BEFORE_CARET.exec(text.slice(0, caret))
  if (!m) return null
  const column = columns.find((c) => c.name === (m[1] ?? m[2]))
  const known = column && values[column.name]
  if (!column || !known?.length) return null
  const quoted = m[3] !== undefined
  const typed = (quoted ? m[3].replace(/''/g, "'") : m[4]).toLowerCase()
  const start = caret - (quoted ? m[3].length + 1 : m[4].length)
  // Through the closing quote (or the end of a bare value) after the caret.
  const rest = text.slice(caret)
  const end = caret + (quoted ? (/^(?:[^']|'')*'?/.exec(rest)?.[0].length ?? 0) : (/^[^\s')]*/.exec(rest)?.[0].length ?? 0))
  const literal = (v: Value) => (v === null ? 'NULL' : QUOTED.has(column.type) || typeof v === 'string' ? `'${String(v).replace(/'/g, "''")}'` : String(v))
  const options = known
    .filter((k) => k.value !== null && String(k.value).toLowerCase().includes(typed))
    .slice(0, MAX_SUGGESTIONS)
    .map((k) => ({ label: String(k.value), insert: literal(k.value), note: `${k.count.toLocaleString('en')} rows` }))
  return options.length ? { of: column.name, start, end, options } : null
}

/** Values of the column being compared at the caret, or else columns that complete the word being typed (outside quoted text). */
export function completionsAt(text: string, caret: number, columns: ColumnHint[], values: ValueHints = {}): Completion | null {
  const value = valueCompletion(text, caret, columns, values)
  if (value) return value
  const before = text.slice(0, caret)
  // Inside a string literal: an odd number of quotes before the caret.
  if ((before.match(/'/g)?.length ?? 0) % 2 === 1) return null
  const word = WORD_BEFORE_CARET.exec(before)?.[0]
  if (!word) return null
  const end = caret + (/^[A-Za-z0-9_]*/.exec(text.slice(caret))?.[0].length ?? 0)
  const lower = word.toLowerCase()
  const starts = columns.filter((c) => c.name.startsWith(lower))
  const contains = columns.filter((c) => !c.name.startsWith(lower) && c.name.includes(lower))
  const options = [...starts, ...contains]
    .filter((c) => c.name !== text.slice(caret - word.length, end))
    .slice(0, MAX_SUGGESTIONS)
    .map((c) => ({ label: c.name, insert: c.name, note: c.type }))
  return options.length ? { of: 'columns', start: caret - word.length, end, options } : null
}

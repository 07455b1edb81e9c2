import { loadModule, parseSync, type Node } from 'libpg-query'
import { deparseSync } from 'pgsql-deparser'
import { AppError } from '@/lib/errors'
import type { DatasetDef } from '@/lib/datasets/catalog'
import { MAX_FILTER_LENGTH } from '@/lib/query/filter-limits'
import { checkGrowthBudget } from '@/lib/query/filter-budget'

// User filters are Postgres WHERE fragments. They are parsed by the real Postgres grammar
// (libpg-query), walked against an allow-list, and the SQL we run is regenerated from the checked
// tree (pgsql-deparser) — the raw string never reaches the database. Anything outside the list is
// a 400 naming what is not allowed, as is an expression that could grow values past the
// amplification budget (lib/query/filter-budget.ts). The database adds its own walls (read-only transaction,
// SELECT-only role, statement timeout); this is the first one.

const MAX_DEPTH = 64
const MAX_NODES = 2000
const PREFIX = 'SELECT 1 FROM t WHERE '

const COMPARISON_OPERATORS = new Set(['=', '<>', '!=', '<', '<=', '>', '>='])
// Arithmetic for expressions like duration_ms / 1000 > 2; inet containment for client_ip << '10.0.0.0/8'.
const OTHER_OPERATORS = new Set(['+', '-', '*', '/', '%', '<<', '<<=', '>>', '>>='])
const LIKE_OPERATORS = new Set(['~~', '!~~', '~~*', '!~~*'])

/** Pure, cheap functions (catalogue names: trim() parses as btrim(), extract() as extract()). */
export const ALLOWED_FUNCTIONS = new Set([
  'lower',
  'upper',
  'length',
  'char_length',
  'btrim',
  'ltrim',
  'rtrim',
  'substring',
  'substr',
  'left',
  'right',
  'replace',
  'split_part',
  'strpos',
  'position',
  'concat',
  'starts_with',
  'abs',
  'round',
  'floor',
  'ceil',
  'date_trunc',
  'date_part',
  'extract',
  'host',
  'family',
  'masklen',
])

const ALLOWED_TYPES = new Map<string, string>([
  ['text', 'text'],
  ['varchar', 'varchar'],
  ['bpchar', 'char'],
  ['int2', 'smallint'],
  ['int4', 'integer'],
  ['int8', 'bigint'],
  ['numeric', 'numeric'],
  ['float4', 'real'],
  ['float8', 'double precision'],
  ['bool', 'boolean'],
  ['date', 'date'],
  ['time', 'time'],
  ['timestamp', 'timestamp'],
  ['timestamptz', 'timestamptz'],
  ['interval', 'interval'],
  ['inet', 'inet'],
  ['cidr', 'cidr'],
  // Spellings the parser keeps as written
  ['integer', 'integer'],
  ['int', 'integer'],
  ['smallint', 'smallint'],
  ['bigint', 'bigint'],
  ['boolean', 'boolean'],
  ['real', 'real'],
])

const NODE_NAMES: Record<string, string> = {
  SubLink: 'sub-queries',
  SelectStmt: 'sub-queries',
  A_Star: '* (all columns)',
  ParamRef: 'parameter placeholders ($1)',
  RowExpr: 'row constructors',
  A_ArrayExpr: 'arrays',
  A_Indirection: 'subscripts and field selection',
  CollateClause: 'COLLATE',
  SQLValueFunction: 'session values (current_user, current_timestamp…)',
  XmlExpr: 'XML functions',
  GroupingFunc: 'GROUPING',
  MinMaxExpr: 'GREATEST/LEAST',
  SetToDefault: 'DEFAULT',
}

const fail = (message: string): never => {
  throw new AppError('invalid_input', `Filter not allowed: ${message}`)
}

let ready: Promise<void> | undefined
/** Loads the WASM parser once per process. */
export function loadFilterParser(): Promise<void> {
  return (ready ??= loadModule())
}

export interface CheckedFilter {
  /** The regenerated WHERE fragment (from the checked tree), or null when no filter was given. */
  sql: string | null
  /** Dataset columns the filter uses. */
  columns: string[]
}

/** Parses, checks and regenerates a filter; throws AppError('invalid_input') naming the problem. */
export async function checkFilter(filter: string | undefined | null, dataset: DatasetDef): Promise<CheckedFilter> {
  await loadFilterParser()
  return checkFilterSync(filter, dataset)
}

// Checked filters, by dataset and text: a filter is parsed, checked and regenerated once, then
// reused by every page, count and dashboard that carries it (the check is a pure function of the two).
const CHECKED_MAX = 500
const checked = new Map<string, CheckedFilter>()

/** As checkFilter, once loadFilterParser() has resolved. */
export function checkFilterSync(filter: string | undefined | null, dataset: DatasetDef): CheckedFilter {
  const text = (filter ?? '').trim()
  if (!text) return { sql: null, columns: [] }
  const key = `${dataset.id}\u0000${text}`
  const known = checked.get(key)
  if (known) return { sql: known.sql, columns: [...known.columns] }
  const result = checkUncached(text, dataset)
  if (checked.size >= CHECKED_MAX) checked.delete(checked.keys().next().value!)
  checked.set(key, result)
  return { sql: result.sql, columns: [...result.columns] }
}

function checkUncached(text: string, dataset: DatasetDef): CheckedFilter {
  if (text.length > MAX_FILTER_LENGTH) fail(`longer than ${MAX_FILTER_LENGTH} characters`)
  if (text.includes('\u0000')) fail('NUL characters')
  const where = whereClauseOf(text)
  const columns = new Set<string>()
  walk(where, { dataset, columns, nodes: 0 }, 0)
  checkGrowthBudget(where)
  const sql = deparseSync(where as never, { pretty: false })
  // The regenerated text must parse back to the very tree we checked; anything else means the
  // deparser and the parser disagree, and we refuse rather than run something unchecked.
  if (stableJson(whereClauseOf(sql)) !== stableJson(where)) fail('the expression could not be regenerated faithfully')
  return { sql, columns: [...columns].sort() }
}

function whereClauseOf(text: string): Node {
  let parsed
  try {
    parsed = parseSync(PREFIX + text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const cursor = (error as { sqlDetails?: { cursorPosition?: number } }).sqlDetails?.cursorPosition
    const at = typeof cursor === 'number' && cursor >= PREFIX.length ? ` (at character ${cursor - PREFIX.length + 1})` : ''
    throw new AppError('invalid_input', `Filter is not valid SQL: ${message}${at}`)
  }
  const stmts = parsed.stmts ?? []
  if (stmts.length !== 1) fail('more than one statement')
  const select = (stmts[0].stmt as { SelectStmt?: Record<string, unknown> } | undefined)?.SelectStmt
  if (!select) fail('not a plain expression')
  // Only our own wrapper's parts may be present: a filter that smuggles in UNION, ORDER BY,
  // LIMIT, GROUP BY, WINDOW, FOR UPDATE… changes the statement's shape.
  for (const [key, value] of Object.entries(select!)) {
    if (key === 'targetList' || key === 'fromClause' || key === 'whereClause') continue
    if (key === 'op' && value === 'SETOP_NONE') continue
    if (key === 'limitOption' && value === 'LIMIT_OPTION_DEFAULT') continue
    fail(clauseName(key))
  }
  if (!select!.whereClause) fail('empty expression')
  return select!.whereClause as Node
}

function clauseName(key: string): string {
  const names: Record<string, string> = {
    op: 'UNION/INTERSECT/EXCEPT',
    larg: 'UNION/INTERSECT/EXCEPT',
    sortClause: 'ORDER BY',
    limitCount: 'LIMIT',
    limitOffset: 'OFFSET',
    limitOption: 'FETCH',
    groupClause: 'GROUP BY',
    havingClause: 'HAVING',
    windowClause: 'WINDOW',
    lockingClause: 'FOR UPDATE/SHARE',
    withClause: 'WITH',
    intoClause: 'INTO',
    distinctClause: 'DISTINCT',
  }
  return `${names[key] ?? key} clauses`
}

interface WalkState {
  dataset: DatasetDef
  columns: Set<string>
  nodes: number
}

function walk(node: unknown, state: WalkState, depth: number): void {
  if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`)
  if (++state.nodes > MAX_NODES) fail(`more than ${MAX_NODES} expression nodes`)
  if (!node || typeof node !== 'object') fail('an empty expression')
  const entries = Object.entries(node as Record<string, unknown>)
  if (entries.length !== 1) fail('an unexpected expression')
  const [kind, body] = entries[0] as [string, Record<string, unknown>]
  const next = (child: unknown) => walk(child, state, depth + 1)
  const each = (children: unknown) => {
    if (!Array.isArray(children)) fail('an unexpected expression')
    for (const child of children as unknown[]) next(child)
  }

  switch (kind) {
    case 'A_Const':
      if ('bsval' in body) fail('bit-string literals')
      return
    case 'ColumnRef': {
      const fields = body.fields as Array<Record<string, { sval?: string }>>
      if (fields.some((f) => 'A_Star' in f)) fail(NODE_NAMES.A_Star)
      if (fields.length !== 1 || !fields[0].String) fail(`qualified names (${fields.map((f) => f.String?.sval ?? '?').join('.')}); use a bare column name`)
      const name = fields[0].String.sval ?? ''
      if (!state.dataset.columns.some((c) => c.name === name))
        fail(`unknown column "${name}" in dataset ${state.dataset.id} (columns: ${state.dataset.columns.map((c) => c.name).join(', ')})`)
      state.columns.add(name)
      return
    }
    case 'BoolExpr':
      return each(body.args)
    case 'NullTest':
      return next(body.arg)
    case 'BooleanTest':
      return next(body.arg)
    case 'A_Expr':
      return walkExpr(body, next, each)
    case 'TypeCast': {
      const typeName = body.typeName as {
        names: Array<{ String: { sval: string } }>
        arrayBounds?: unknown
        typmods?: unknown[]
        setof?: boolean
        pct_type?: boolean
      }
      const names = typeName.names.map((n) => n.String?.sval ?? '?')
      const type = names[names.length - 1]
      const schemaOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog')
      if (!schemaOk || !ALLOWED_TYPES.has(type) || typeName.arrayBounds || typeName.setof || typeName.pct_type)
        fail(`cast to ${names.join('.')}${typeName.arrayBounds ? '[]' : ''} (allowed: ${[...new Set(ALLOWED_TYPES.values())].join(', ')})`)
      for (const mod of typeName.typmods ?? []) if (!(mod as Record<string, unknown>).A_Const) fail('type modifiers other than numbers')
      return next(body.arg)
    }
    case 'FuncCall': {
      const names = (body.funcname as Array<{ String: { sval: string } }>).map((n) => n.String?.sval ?? '?')
      const name = names[names.length - 1]
      const schemaOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog')
      if (!schemaOk || !ALLOWED_FUNCTIONS.has(name)) fail(`function ${names.join('.')}() (allowed: ${[...ALLOWED_FUNCTIONS].join(', ')}, coalesce, nullif)`)
      for (const key of ['agg_order', 'agg_filter', 'over', 'agg_within_group', 'agg_star', 'agg_distinct', 'func_variadic'])
        if (body[key]) fail(`aggregate or window forms of ${name}()`)
      if (body.args) each(body.args)
      return
    }
    case 'CoalesceExpr':
      return each(body.args)
    case 'CaseExpr':
      if (body.arg) next(body.arg)
      each(body.args)
      if (body.defresult) next(body.defresult)
      return
    case 'CaseWhen':
      next(body.expr)
      return next(body.result)
    default:
      fail(NODE_NAMES[kind] ?? `${kind} expressions`)
  }
}

function walkExpr(body: Record<string, unknown>, next: (n: unknown) => void, each: (n: unknown) => void) {
  const op = ((body.name as Array<{ String?: { sval: string } }>) ?? []).map((n) => n.String?.sval ?? '?')
  const operator = op.join('.')
  switch (body.kind) {
    case 'AEXPR_OP':
      if (op.length !== 1 || !(COMPARISON_OPERATORS.has(operator) || OTHER_OPERATORS.has(operator)))
        fail(
          `operator ${operator} (allowed: ${[...COMPARISON_OPERATORS, ...OTHER_OPERATORS].join(' ')}, LIKE, ILIKE, IN, BETWEEN, IS [NOT] NULL, IS [NOT] DISTINCT FROM)`,
        )
      break
    case 'AEXPR_LIKE':
    case 'AEXPR_ILIKE':
      if (op.length !== 1 || !LIKE_OPERATORS.has(operator)) fail(`operator ${operator}`)
      break
    case 'AEXPR_IN':
      if (operator !== '=' && operator !== '<>') fail(`operator ${operator} in IN`)
      if (!(body.rexpr as Record<string, unknown>)?.List) fail('IN without a list of values')
      next(body.lexpr)
      return each((body.rexpr as { List: { items: unknown[] } }).List.items)
    case 'AEXPR_BETWEEN':
    case 'AEXPR_NOT_BETWEEN':
    case 'AEXPR_BETWEEN_SYM':
    case 'AEXPR_NOT_BETWEEN_SYM':
      next(body.lexpr)
      return each((body.rexpr as { List: { items: unknown[] } }).List?.items)
    case 'AEXPR_DISTINCT':
    case 'AEXPR_NOT_DISTINCT':
    case 'AEXPR_NULLIF':
      if (operator !== '=') fail(`operator ${operator}`)
      break
    case 'AEXPR_OP_ANY':
    case 'AEXPR_OP_ALL':
      fail('ANY/ALL (use IN with a list)')
      break
    case 'AEXPR_SIMILAR':
      fail('SIMILAR TO (use LIKE or ILIKE)')
      break
    default:
      fail(`${String(body.kind).replace('AEXPR_', '')} expressions`)
  }
  if (body.lexpr) next(body.lexpr)
  if (!body.rexpr) fail('an incomplete expression')
  next(body.rexpr)
}

/** JSON of a parse tree without source positions, for comparing two parses. */
function stableJson(node: unknown): string {
  return JSON.stringify(node, (key, value) =>
    key === 'location' || key.endsWith('_location') || key === 'rexpr_list_start' || key === 'rexpr_list_end' ? undefined : value,
  )
}

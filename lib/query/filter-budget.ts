import { AppError } from '@/lib/errors'
import { ASSUMED_VALUE_BYTES, MAX_GROWTH_NESTING, MAX_VALUE_BYTES } from '@/lib/query/filter-limits'

// The amplification budget of a filter. The statement timeout bounds how long a filter runs, not
// how much memory one row's expression takes: replace(replace(…(route, '/', '//////////')…)) grows
// a value tenfold per level, and nine levels took a Postgres backend past 1 GB within the timeout.
// So before any SQL runs, every expression of the checked parse tree gets an upper bound on the
// bytes it can produce, from a column value of at most ASSUMED_VALUE_BYTES: functions that lengthen
// values multiply or add to it, others keep the largest of their arguments. A filter is refused
// when any bound passes MAX_VALUE_BYTES, or when such functions nest deeper than MAX_GROWTH_NESTING.
// It covers functions the allow-list may gain later, so adding one cannot open the hole again.

interface Estimate {
  /** Upper bound of the value's size in bytes. */
  bytes: number
  /** Functions that lengthen values, nested along the deepest path below and including this node. */
  nesting: number
  /** The literal's text, when the node is a string or number literal. */
  literal?: string
}

type Node = Record<string, unknown>

/** Functions (and the || operator) whose result can be longer than their longest argument. */
const GROWTH = new Set([
  'replace',
  'repeat',
  'lpad',
  'rpad',
  'concat',
  'concat_ws',
  'string_agg',
  'regexp_replace',
  'format',
  'array_fill',
  'translate',
  'overlay',
  '||',
])

/** What a non-text result (a number, a boolean, a time) costs at most. */
const SCALAR_BYTES = 64

const refuse = (message: string): never => {
  throw new AppError('invalid_input', `Filter not allowed: ${message}`)
}

const size = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`

/** Throws AppError('invalid_input') saying why when the expression can grow values past the budget. */
export function checkGrowthBudget(where: unknown): void {
  estimate(where)
}

function estimate(node: unknown): Estimate {
  if (!node || typeof node !== 'object') return { bytes: 0, nesting: 0 }
  if (Array.isArray(node)) return combine(node.map(estimate))
  const [kind, body] = Object.entries(node as Node)[0] as [string, Node]
  switch (kind) {
    case 'A_Const':
      return constant(body)
    case 'ColumnRef':
      return { bytes: ASSUMED_VALUE_BYTES, nesting: 0 }
    case 'TypeCast': {
      const inner = estimate(body.arg)
      return { bytes: Math.max(inner.bytes, SCALAR_BYTES), nesting: inner.nesting, literal: inner.literal }
    }
    case 'FuncCall':
      return func(body)
    case 'A_Expr': {
      const op = ((body.name as Array<{ String?: { sval: string } }>) ?? []).map((n) => n.String?.sval).join('.')
      const parts = [estimate(body.lexpr), estimate(body.rexpr)]
      if (op === '||') return grown('||', parts[0].bytes + parts[1].bytes, parts)
      // A comparison is a boolean, arithmetic a number; NULLIF keeps its left side.
      const inner = combine(parts)
      return { bytes: body.kind === 'AEXPR_NULLIF' ? parts[0].bytes : SCALAR_BYTES, nesting: inner.nesting }
    }
    case 'CoalesceExpr':
      return estimate(body.args)
    case 'CaseExpr':
      return combine([estimate(body.arg), estimate(body.args), estimate(body.defresult)])
    case 'CaseWhen': {
      const result = estimate(body.result)
      return { bytes: result.bytes, nesting: Math.max(result.nesting, estimate(body.expr).nesting) }
    }
    case 'List':
      return estimate(body.items)
    default: {
      // Boolean forms (AND/OR/NOT, IS NULL, IS TRUE…): their operands count, their result is small.
      const inner = combine(
        Object.values(body)
          .filter((v) => v && typeof v === 'object')
          .map(estimate),
      )
      return { bytes: SCALAR_BYTES, nesting: inner.nesting }
    }
  }
}

function constant(body: Node): Estimate {
  const value = body.sval ?? body.ival ?? body.fval ?? body.boolval
  if (!value || typeof value !== 'object') return { bytes: 0, nesting: 0 }
  const text = String(Object.values(value as Node)[0] ?? 0)
  return { bytes: Buffer.byteLength(text), nesting: 0, literal: text }
}

/** The largest of several values, and their deepest nesting. */
function combine(parts: Estimate[]): Estimate {
  return { bytes: Math.max(0, ...parts.map((p) => p.bytes)), nesting: Math.max(0, ...parts.map((p) => p.nesting)) }
}

/** A value grown by `name` to `bytes`: checked against both bounds here, where the message can name the function. */
function grown(name: string, bytes: number, args: Estimate[]): Estimate {
  const label = name === '||' ? 'the || operator' : `${name}()`
  const nesting = 1 + Math.max(0, ...args.map((a) => a.nesting))
  if (nesting > MAX_GROWTH_NESTING)
    refuse(
      `${label} is nested ${nesting} deep among functions that lengthen values (${[...GROWTH].join(', ')}); at most ${MAX_GROWTH_NESTING} may be nested, as each level multiplies the memory one row takes in the database`,
    )
  if (bytes > MAX_VALUE_BYTES)
    refuse(
      `${label} could make a value of up to ${size(bytes)} from column values of up to ${size(ASSUMED_VALUE_BYTES)} (at most ${size(MAX_VALUE_BYTES)} per value, so that one filter cannot take the database's memory)`,
    )
  return { bytes, nesting }
}

/** A count or length argument: it must be a number written in the filter, else the growth is unbounded. */
function countOf(name: string, arg: Estimate | undefined, what: string): number {
  const n = arg?.literal === undefined ? NaN : Number(arg.literal)
  if (!Number.isFinite(n)) refuse(`${name}() with a ${what} that is not a number written in the filter (its growth could not be bounded)`)
  return Math.max(0, n)
}

function func(body: Node): Estimate {
  const names = (body.funcname as Array<{ String?: { sval: string } }>).map((n) => n.String?.sval ?? '?')
  const name = names[names.length - 1]
  const args = ((body.args as unknown[]) ?? []).map(estimate)
  const [x, a, b] = args
  const bytes = (i: number) => args[i]?.bytes ?? 0
  switch (name) {
    case 'replace': {
      // Every occurrence of `a` (at least one byte long, whatever it is) becomes `b`.
      const from = a?.literal !== undefined ? Math.max(Buffer.byteLength(a.literal), 1) : 1
      return grown(name, bytes(0) * Math.max(1, bytes(2) / from), args)
    }
    case 'translate':
      // One character for one, but a one-byte character may become a four-byte one.
      return grown(name, bytes(0) * (b?.literal !== undefined && Buffer.byteLength(b.literal) === b.literal.length ? 1 : 4), args)
    case 'repeat':
      return grown(name, bytes(0) * countOf(name, a, 'count'), args)
    case 'lpad':
    case 'rpad':
      // The result has exactly that many characters, each up to four bytes.
      return grown(name, Math.max(bytes(0), countOf(name, a, 'length') * 4), args)
    case 'concat':
    case 'overlay':
      return grown(
        name,
        args.reduce((sum, p) => sum + p.bytes, 0),
        args,
      )
    case 'concat_ws':
      return grown(name, args.slice(1).reduce((sum, p) => sum + p.bytes, 0) + bytes(0) * Math.max(0, args.length - 2), args)
    case 'format': {
      // Each % of a literal format may insert any argument (positional references repeat them).
      if (x?.literal === undefined) refuse('format() with a format that is not written in the filter')
      const slots = (x!.literal!.match(/%/g) ?? []).length
      return grown(name, bytes(0) + slots * Math.max(0, ...args.slice(1).map((p) => p.bytes)), args)
    }
    case 'regexp_replace': {
      // An empty match between every two characters may insert the replacement; a replacement
      // that is not a literal without backslashes may repeat the match (\&) as well.
      const plain = b?.literal !== undefined && !b.literal.includes('\\')
      return grown(name, (bytes(0) + 1) * (bytes(2) + 1) * (plain ? 1 : Math.max(1, bytes(0))), args)
    }
    case 'string_agg':
    case 'array_fill':
      return refuse(`${name}() (its result has no bound)`)
    default:
      // Case folding, trimming, substrings, positions, numbers and times: no longer than the longest argument.
      return combine(args)
  }
}

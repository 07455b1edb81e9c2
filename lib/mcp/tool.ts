import 'server-only'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { AppError, type ErrorCode } from '@/lib/errors'
import { log } from '@/lib/log'
import { stripInvisible } from '@/lib/mcp/hygiene'

// What every tool of this server shares: read-only annotations, a result that carries the
// structured answer and a text copy (the JSON, after a one-line summary when that adds at most a
// tenth) for clients that only read text, one mapping from our errors to `isError` results that
// say what to do next, text hygiene (lib/mcp/hygiene.ts) and a size budget per result.

/**
 * The most characters a tool result may take (its JSON: the text block and the structured content
 * together). Claude Code warns at 10,000 tokens and caps at 25,000; 24,000 characters of JSON are
 * some 6,000-8,000 tokens. A result over it is cut by the tool's `fit` (a shorter page) or, failing
 * that, by shortening its longest strings, and its summary says how to get the rest.
 */
export const RESULT_MAX_CHARS = 24_000

export interface McpRequestContext {
  /** The request id the gate assigned; quoted in internal-error messages and logs. */
  requestId: string
}

export interface ReadOnlyTool<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string
  title: string
  /** What it returns, its limits and how it fails: the only documentation a model reads. */
  description: string
  /** Strict object schema: unknown arguments are refused. */
  input: I
  output: O
  /** Reaches a service outside this deployment (DNS, the PDS), whose answers change by themselves. */
  openWorld: boolean
  run: (args: z.output<I>) => Promise<z.output<O>>
  summarize: (result: z.output<O>) => string
  /** Advice for a failure code when the tool knows better than the generic advice. */
  advice?: Partial<Record<ErrorCode, string>>
  /**
   * A result cut down until `fits` accepts it (a shorter page, fewer entries), with a sentence saying
   * how to get the rest; for tools whose answer grows with the data.
   */
  fit?: (result: z.output<O>, args: z.output<I>, fits: (candidate: z.output<O>) => boolean) => { result: z.output<O>; note: string }
  /** Where the whole answer is when strings had to be shortened (a REST operation), for the summary's note. */
  wholeAnswer?: (args: z.output<I>) => string
}

/** The input of a tool that takes no arguments: `{}` only, anything else refused. */
export const NoArguments = z.object({}).strict()

/** Keeps each tool's own input and output types while the list of tools holds them all. */
export const defineTool = <I extends z.ZodObject, O extends z.ZodObject>(tool: ReadOnlyTool<I, O>) => tool as unknown as ReadOnlyTool

// The message of an AppError says what went wrong; this says what the caller can do about it.
const ADVICE: Record<ErrorCode, (error: AppError, requestId: string) => string> = {
  invalid_input: () => 'Correct that argument and call the tool again.',
  unauthorized: () => 'This tool needs no credentials; report the problem to the operator.',
  forbidden: () => 'This tool needs no credentials; report the problem to the operator.',
  not_found: () => 'Calling again with the same arguments will give the same answer.',
  method_not_allowed: () => 'Report the problem to the operator.',
  request_timeout: () => 'Retry in a few seconds.',
  conflict: () => 'Retry in a few seconds.',
  payload_too_large: () => 'Send smaller arguments.',
  unsupported_media_type: () => 'Report the problem to the operator.',
  headers_too_large: () => 'Report the problem to the operator.',
  unavailable: (e) => `Retry after ${Number(e.details?.retryAfterSeconds) || 30} seconds.`,
  rate_limited: (e) => `Retry after ${Number(e.details?.retryAfterSeconds) || 30} seconds.`,
  internal: (_, requestId) => `Retry later; quote request id ${requestId} when contacting support.`,
  upstream_failed: () => 'The failure is on the upstream side; retry in a minute or two.',
  not_configured: () => 'This server cannot answer this tool until its operator changes that setting; retrying will not help.',
  upstream_timeout: () => 'Retry in a few seconds; a slow upstream often answers the second time.',
}

function failureText(tool: ReadOnlyTool, error: unknown, ctx: McpRequestContext): string {
  if (error instanceof AppError) {
    if (error.status >= 500)
      log.warn('mcp tool failed', { requestId: ctx.requestId, tool: tool.name, code: error.code, message: error.message, detail: error.details?.detail })
    return `${error.message} ${tool.advice?.[error.code] ?? ADVICE[error.code](error, ctx.requestId)}`
  }
  log.error('mcp tool crashed', {
    requestId: ctx.requestId,
    tool: tool.name,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
  })
  return `Internal error in ${tool.name} (request id ${ctx.requestId}). Retry later; quote the request id when contacting support.`
}

/**
 * The output schema as tools/list advertises it. A schema carrying a component id (`.meta({ id })`)
 * becomes a bare `$ref` at the root of its JSON Schema, and MCP wants `type: "object"` there; a copy
 * of its shape has no id, while the nested components still land in `$defs`.
 */
const advertisedOutput = (schema: z.ZodObject) => z.object(schema.shape).meta({ description: schema.description })

/** How a tool is described in tools/list, whichever protocol era lists it (the schemas stay zod; each SDK converts them). */
export function toolDefinition(tool: ReadOnlyTool) {
  return {
    title: tool.title,
    description: tool.description,
    inputSchema: tool.input,
    outputSchema: advertisedOutput(tool.output),
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: tool.openWorld },
  }
}

/** The JSON length of a result: what a client holds in its context. */
export const resultChars = (result: CallToolResult) => JSON.stringify(result).length

/**
 * The structured answer and its text copy: the JSON, after the summary (and `note`) when they add
 * at most a tenth to it, so the text is never more than 1.1 times the structured content. A small
 * answer (a few totals) is its own summary.
 */
function toResult(tool: ReadOnlyTool, structured: Record<string, unknown>, note = ''): CallToolResult {
  const json = JSON.stringify(structured)
  const summary = `${tool.summarize(structured)}${note ? ` ${note}` : ''}`
  const text = summary.length + 2 <= json.length / 10 ? `${summary}\n\n${json}` : json
  return { content: [{ type: 'text', text }], structuredContent: structured }
}

const ellipsis = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s)

/** `value` with strings longer than `chars` shortened (ending in …) and arrays cut to their first `items` entries. */
function shorten<T>(value: T, chars: number, items = Infinity): T {
  if (typeof value === 'string') return ellipsis(value, chars) as T
  if (Array.isArray(value)) return value.slice(0, items).map((v) => shorten(v, chars, items)) as T
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v, chars, items)])) as T
  return value
}

function longest(value: unknown): { chars: number; items: number } {
  if (typeof value === 'string') return { chars: value.length, items: 0 }
  if (!value || typeof value !== 'object') return { chars: 0, items: 0 }
  const inner = Object.values(value).map(longest)
  return {
    chars: Math.max(0, ...inner.map((l) => l.chars)),
    items: Math.max(Array.isArray(value) ? value.length : 0, ...inner.map((l) => l.items)),
  }
}

/** The largest n from `low` to `high` for which `fits(n)` holds (fits shrinks as n grows), or null when even `low` does not. */
export function largestFitting(low: number, high: number, fits: (max: number) => boolean): number | null {
  if (!fits(low)) return null
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (fits(mid)) low = mid
    else high = mid - 1
  }
  return low
}

/** Room kept for the note a tool's `fit` adds to the summary. */
const NOTE_ROOM = ' '.repeat(300)

// Shortened strings keep at least this much: enough for a name, a DID or a date, which schemas pattern-check.
const MIN_STRING_CHARS = 64

/** The result within RESULT_MAX_CHARS: as is, cut by the tool's own `fit`, or with its longest strings shortened. */
function withinBudget(tool: ReadOnlyTool, args: z.output<z.ZodObject>, structured: Record<string, unknown>): CallToolResult {
  const whole = toResult(tool, structured)
  if (resultChars(whole) <= RESULT_MAX_CHARS) return whole
  if (tool.fit) {
    const fits = (candidate: Record<string, unknown>) => resultChars(toResult(tool, candidate, NOTE_ROOM)) <= RESULT_MAX_CHARS
    const fitted = tool.fit(structured, args, fits)
    const result = toResult(tool, fitted.result, fitted.note)
    if (resultChars(result) <= RESULT_MAX_CHARS) return result
  }
  // Shorten the longest strings as little as will do; if the shortest strings are still too many,
  // cut every list to its first entries as well.
  const where = tool.wholeAnswer?.(args) ?? 'narrower arguments give smaller answers'
  const note = (chars: number, items = Infinity) =>
    `Strings longer than ${chars} characters are shortened (ending in …)${items < Infinity ? ` and lists cut to their first ${items} entries` : ''} to keep this result within ${RESULT_MAX_CHARS} characters; ${where}.`
  const shortened = (chars: number, items = Infinity) => toResult(tool, shorten(structured, chars, items), note(chars, items))
  const size = longest(structured)
  const chars = largestFitting(MIN_STRING_CHARS, size.chars, (c) => resultChars(shortened(c)) <= RESULT_MAX_CHARS)
  if (chars !== null) return shortened(chars)
  const items = largestFitting(1, size.items, (n) => resultChars(shortened(MIN_STRING_CHARS, n)) <= RESULT_MAX_CHARS)
  if (items !== null) return shortened(MIN_STRING_CHARS, items)
  log.warn('mcp tool result over budget', { tool: tool.name, chars: resultChars(whole) })
  return {
    content: [{ type: 'text', text: `The answer of ${tool.name} is larger than ${RESULT_MAX_CHARS} characters even when shortened; ${where}.` }],
    isError: true,
  }
}

/**
 * One call of a tool, the same for both protocol eras: the structured answer with its text copy,
 * or an `isError` result saying what to do next. The one place every result passes: upstream text
 * is stripped of invisible characters, then the result is kept within its budget.
 */
export async function callTool(tool: ReadOnlyTool, args: unknown, ctx: McpRequestContext): Promise<CallToolResult> {
  try {
    const input = args as z.output<z.ZodObject>
    return withinBudget(tool, input, stripInvisible(await tool.run(input)))
  } catch (error) {
    return { content: [{ type: 'text', text: stripInvisible(failureText(tool, error, ctx)) }], isError: true }
  }
}

export function registerReadOnlyTool(server: McpServer, tool: ReadOnlyTool, ctx: McpRequestContext) {
  server.registerTool(tool.name, toolDefinition(tool), (args): Promise<CallToolResult> => callTool(tool, args, ctx))
}

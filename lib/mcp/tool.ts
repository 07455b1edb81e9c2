import 'server-only'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { AppError, type ErrorCode } from '@/lib/errors'
import { log } from '@/lib/log'

// What every tool of this server shares: read-only annotations, a result that carries the
// structured answer and a text copy (a one-line summary, then the JSON) for clients that only read
// text, and one mapping from our errors to `isError` results that say what to do next.

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

/**
 * One call of a tool, the same for both protocol eras: the structured answer with its text copy
 * (a one-line summary, then the same JSON), or an `isError` result saying what to do next.
 */
export async function callTool(tool: ReadOnlyTool, args: unknown, ctx: McpRequestContext): Promise<CallToolResult> {
  try {
    const result = await tool.run(args as z.output<z.ZodObject>)
    return { content: [{ type: 'text', text: `${tool.summarize(result)}\n\n${JSON.stringify(result)}` }], structuredContent: result }
  } catch (error) {
    return { content: [{ type: 'text', text: failureText(tool, error, ctx) }], isError: true }
  }
}

export function registerReadOnlyTool(server: McpServer, tool: ReadOnlyTool, ctx: McpRequestContext) {
  server.registerTool(tool.name, toolDefinition(tool), (args): Promise<CallToolResult> => callTool(tool, args, ctx))
}

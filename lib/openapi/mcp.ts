import { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { ErrorEnvelope } from '@/lib/http/errors'
import { tools as registeredTools } from '@/lib/mcp/tools'
import { MCP_BATCH_MAX, RATE_LIMITED_CODE, rateLimitedAnswer } from '@/lib/mcp/cost'
import { rateLimitMessage } from '@/lib/ratelimit/limiter'
import { answersByStatus, type Examples, type RecordedAnswer } from '@/lib/openapi/examples'

// /api/mcp in the OpenAPI document: the HTTP envelope only. The tools themselves, with their input
// and output schemas, are described by the server's own tools/list answer, not here.

const id = z.union([z.string(), z.int()]).meta({ description: 'Request id, echoed in the answer' })

const JsonRpcRequest = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: id.optional().meta({ description: 'Absent for a notification, which gets no answer' }),
    method: z.string().meta({ examples: ['initialize', 'tools/list', 'tools/call'] }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'JsonRpcRequest', description: 'A JSON-RPC 2.0 request or notification (a batch is an array of them)' })

const JsonRpcResult = z
  .object({ jsonrpc: z.literal('2.0'), id, result: z.record(z.string(), z.unknown()) })
  .meta({ id: 'JsonRpcResult', description: 'A successful answer; a failed tool call is a result with `isError: true`' })

const JsonRpcError = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: id.nullable().meta({ description: 'null when the request could not be read' }),
    error: z.object({
      code: z.int().meta({
        description: `-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params or unknown tool, -32603 internal error, -32000 transport errors (wrong headers, forbidden origin, method not allowed), ${RATE_LIMITED_CODE} rate limited (\`data\`: retryAfter, limit, remaining, windowSeconds, cost)`,
      }),
      message: z.string(),
      data: z.unknown().optional(),
    }),
  })
  .meta({ id: 'JsonRpcError', description: 'A JSON-RPC 2.0 error answer' })

const JsonRpcAnswer = z.union([JsonRpcResult, JsonRpcError])

/** A message sent to the tool server whose recorded answer is an example (scripts/openapi-examples.ts). */
export interface McpExample {
  name: string
  summary: string
  /** The JSON-RPC message, also shown as a request example. */
  message?: Record<string, unknown>
  /** A body that is not a JSON-RPC message (sent as is, not shown). */
  rawBody?: () => string
  /** Headers that differ from a well-behaved client's. */
  headers?: Record<string, string>
  /** false: only the request is shown (tools/list answers with every tool's schemas, too long here). */
  answerShown?: false
}

const tools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' })

export const MCP_EXAMPLES: readonly McpExample[] = [
  {
    name: 'initialize',
    summary: 'Initialize (optional: the server is stateless)',
    message: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'example-client', version: '1.0.0' } },
    },
  },
  {
    name: 'callTool',
    summary: 'Call a tool',
    message: {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'verify_pds_handle_availability', arguments: { handle: 'greenground.bsky.social' } },
    },
  },
  { name: 'listTools', summary: 'List the tools with their input and output schemas', message: tools(3), answerShown: false },
  { name: 'initialized', summary: 'A notification gets no answer', message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
  {
    name: 'unknownTool',
    summary: 'Call a tool the server does not have',
    message: { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'get_weather', arguments: {} } },
  },
  { name: 'unknownMethod', summary: 'A method the server does not offer', message: { jsonrpc: '2.0', id: 5, method: 'resources/list' } },
  {
    name: 'invalidArguments',
    summary: "Arguments that break the tool's input schema",
    message: { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'check_domain_health', arguments: { domain: 42 } } },
  },
  { name: 'unreadableJson', summary: 'A body that is not JSON', rawBody: () => '{"jsonrpc": "2.0", "id": 7, "method": ' },
  {
    name: 'foreignOrigin',
    summary: 'A browser page of another site (Origin: https://attacker.example)',
    message: tools(8),
    headers: { origin: 'https://attacker.example' },
  },
  { name: 'acceptHtmlOnly', summary: 'Accept: text/html (no JSON)', message: tools(9), headers: { accept: 'text/html' } },
  { name: 'textBody', summary: 'Content-Type: text/plain', message: tools(10), headers: { 'content-type': 'text/plain' } },
  { name: 'tooLarge', summary: 'A body over 1 MiB', rawBody: () => JSON.stringify({ ...tools(11), params: { padding: 'x'.repeat(1024 * 1024) } }) },
]

/** The gate's 429 answers to a tools/call and to a batch of two. */
function rateLimitedExamples(max: number, windowS: number): Examples {
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_policies', arguments: {} } })
  const data = { retryAfter: 12, limit: max, remaining: 0, windowSeconds: windowS, cost: 1 }
  const message = rateLimitMessage(max, windowS, 12)
  return {
    rateLimited: { summary: 'A tools/call over the limit', value: rateLimitedAnswer(call(2), message, data) },
    rateLimitedBatch: {
      summary: 'A batch of two calls over the limit (2025-03-26)',
      value: rateLimitedAnswer([call(3), call(4)], message, { ...data, cost: 2 }),
    },
  }
}

const jsonRpcErrorResponse = (description: string, headers: z.ZodObject, examples?: Examples, schema: z.ZodType = JsonRpcError) => ({
  description,
  headers,
  content: { 'application/json': { schema, ...(examples ? { examples } : {}) } },
})

const DESCRIPTION = [
  'Model Context Protocol endpoint: JSON-RPC 2.0 over streamable HTTP, **stateless** (no `Mcp-Session-Id`), answering with plain JSON (never an event stream). A `tools/call` works without a prior `initialize`; `GET` and `DELETE` answer 405 (no event stream, no session). ' +
    `${registeredTools.length} read-only tools over the same services as this API; \`tools/list\` gives their input and output schemas.`,
  "Protocol revisions 2025-11-25, 2025-06-18 and 2025-03-26 as described here; revision 2026-07-28 (no `initialize`, the protocol version and client capabilities in each request's `_meta`, the `Mcp-Method` and `Mcp-Name` headers) on the same path, where a request that sets its own log level gets an event stream: see docs/mcp.md.",
  `Requests need \`Content-Type: application/json\` and an \`Accept\` that admits \`application/json\` (\`application/json, text/event-stream\` as the transport specification asks, or \`*/*\`); answers are always JSON. Batches are accepted under protocol version 2025-03-26 only (later versions removed them), of at most ${MCP_BATCH_MAX} messages, and their answer is always an array. No credentials: an \`Authorization\` header is ignored. Browser requests are accepted only from the service’s own origin and the origins in \`MCP_ALLOWED_ORIGINS\` (DNS-rebinding protection).`,
  `The per-client rate limit counts every JSON-RPC message (each message of a batch), and a check_domain_health call also its DNS queries (see docs/mcp.md). Over it, the answer is HTTP 429 with \`Retry-After\` and a JSON-RPC error (code ${RATE_LIMITED_CODE}) for each request id.`,
  'Protocol errors are JSON-RPC errors: -32700 for unreadable JSON, -32601 for an unknown method, -32602 for invalid params or an unknown tool. A tool that fails answers a result with `isError: true` and a message saying what to change or when to retry.',
].join('\n\n')

/**
 * The /mcp path item. `headers` are the rate-limit and request-id headers every answer carries;
 * `answers` the recorded answers to MCP_EXAMPLES; `limit` the rate limit the gate's 429 examples quote.
 */
export function mcpPathItem(
  headers: z.ZodObject,
  retryAfter: z.ZodType,
  answers: Record<string, RecordedAnswer>,
  limit: { max: number; windowS: number },
): ZodOpenApiPathItemObject {
  const byStatus = answersByStatus(
    MCP_EXAMPLES.map((e) => ({ ...e, request: e.message ? `\`${JSON.stringify(e.message)}\`` : undefined })),
    answers,
  )
  const requests = Object.fromEntries(MCP_EXAMPLES.filter((e) => e.message && !e.headers).map((e) => [e.name, { summary: e.summary, value: e.message }]))
  const errorResponse = (status: number, description: string, schema?: z.ZodType) => jsonRpcErrorResponse(description, headers, byStatus.get(status), schema)
  return {
    post: {
      operationId: 'callMcp',
      summary: 'Send a JSON-RPC message to the MCP tool server',
      description: DESCRIPTION,
      tags: ['Tool server'],
      security: [],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: z.union([JsonRpcRequest, z.array(JsonRpcRequest)]), examples: requests } },
      },
      responses: {
        '200': {
          description: 'The answer (an array of answers for a batch)',
          headers,
          content: { 'application/json': { schema: z.union([JsonRpcAnswer, z.array(JsonRpcAnswer)]), examples: byStatus.get(200) } },
        },
        '202': { description: 'Notifications or responses only: accepted, no body', headers },
        '400': errorResponse(
          400,
          'Unreadable JSON (-32700); an invalid request, an empty batch or a batch under a protocol version without batches (-32600, per element for a batch); an unsupported MCP-Protocol-Version (-32602, `data.supported` lists the versions spoken)',
          z.union([JsonRpcError, z.array(JsonRpcError)]),
        ),
        '403': errorResponse(403, 'A browser request from an origin that is not allowed'),
        '406': errorResponse(406, '`Accept` does not admit application/json'),
        '413': errorResponse(413, 'Body larger than 1 MiB'),
        '415': errorResponse(415, '`Content-Type` is not application/json'),
        // The gate answers before the tool server sees the request, in JSON-RPC.
        '429': {
          description: `Rate limit exceeded: a JSON-RPC error (code ${RATE_LIMITED_CODE}) for each request id, or one with id null; retry after the Retry-After seconds`,
          headers: headers.extend({ 'Retry-After': retryAfter }),
          content: {
            'application/json': { schema: z.union([JsonRpcError, z.array(JsonRpcError)]), examples: rateLimitedExamples(limit.max, limit.windowS) },
          },
        },
      },
    },
  }
}

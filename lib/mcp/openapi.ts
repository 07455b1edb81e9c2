import { z } from 'zod'
import type { ZodOpenApiPathItemObject } from 'zod-openapi'
import { ErrorEnvelope } from '@/lib/http/errors'

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
        description: '-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params or unknown tool, -32603 internal error, -32000 transport errors (wrong headers, forbidden origin, method not allowed)',
      }),
      message: z.string(),
      data: z.unknown().optional(),
    }),
  })
  .meta({ id: 'JsonRpcError', description: 'A JSON-RPC 2.0 error answer' })

const JsonRpcAnswer = z.union([JsonRpcResult, JsonRpcError])

const jsonRpcErrorResponse = (description: string, headers: z.ZodObject, schema: z.ZodType = JsonRpcError) => ({
  description,
  headers,
  content: { 'application/json': { schema } },
})

const DESCRIPTION = [
  'Model Context Protocol endpoint: JSON-RPC 2.0 over streamable HTTP, **stateless** (no `Mcp-Session-Id`), answering with plain JSON (never an event stream). A `tools/call` works without a prior `initialize`; `GET` and `DELETE` answer 405 (no event stream, no session). Nine read-only tools over the same services as this API; `tools/list` gives their input and output schemas.',
  'Requests need `Content-Type: application/json` and an `Accept` that admits `application/json` (`application/json, text/event-stream` as the transport specification asks, or `*/*`); answers are always JSON. Batches are accepted under protocol version 2025-03-26 only (later versions removed them), and their answer is always an array. No credentials: an `Authorization` header is ignored. Browser requests are accepted only from the service’s own origin and the origins in `MCP_ALLOWED_ORIGINS` (DNS-rebinding protection). The per-client rate limit applies as to every API call.',
  'Protocol errors are JSON-RPC errors: -32700 for unreadable JSON, -32601 for an unknown method, -32602 for invalid params or an unknown tool. A tool that fails answers a result with `isError: true` and a message saying what to change or when to retry.',
].join('\n\n')

/** The /mcp path item; `headers` are the rate-limit and request-id headers every answer carries. */
export function mcpPathItem(headers: z.ZodObject): ZodOpenApiPathItemObject {
  return {
    post: {
      operationId: 'callMcp',
      summary: 'Send a JSON-RPC message to the MCP tool server',
      description: DESCRIPTION,
      tags: ['Tool server'],
      security: [],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: z.union([JsonRpcRequest, z.array(JsonRpcRequest)]) } },
      },
      responses: {
        '200': {
          description: 'The answer (an array of answers for a batch)',
          headers,
          content: { 'application/json': { schema: z.union([JsonRpcAnswer, z.array(JsonRpcAnswer)]) } },
        },
        '202': { description: 'Notifications or responses only: accepted, no body', headers },
        '400': jsonRpcErrorResponse(
          'Unreadable JSON (-32700); an invalid request, an empty batch or a batch under a protocol version without batches (-32600, per element for a batch); an unsupported MCP-Protocol-Version (-32602, `data.supported` lists the versions spoken)',
          headers,
          z.union([JsonRpcError, z.array(JsonRpcError)]),
        ),
        '403': jsonRpcErrorResponse('A browser request from an origin that is not allowed', headers),
        '406': jsonRpcErrorResponse('`Accept` does not admit application/json', headers),
        '413': jsonRpcErrorResponse('Body larger than 1 MiB', headers),
        '415': jsonRpcErrorResponse('`Content-Type` is not application/json', headers),
        // The gate answers before the tool server sees the request, in the API's error envelope.
        '429': {
          description: 'Rate limit exceeded: retry after the Retry-After seconds',
          headers: headers.extend({ 'Retry-After': z.string().meta({ description: 'Seconds to wait before retrying' }) }),
          content: { 'application/json': { schema: ErrorEnvelope } },
        },
      },
    },
  }
}

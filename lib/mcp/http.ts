import 'server-only'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js'
import { isLegacyRequest } from '@modelcontextprotocol/server'
import type { z } from 'zod'
import { parseJsonText, readBody, requireJsonContentType } from '@/lib/http/body'
import { MCP_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { AppError, describeZodError } from '@/lib/errors'
import { envelope } from '@/lib/http/envelope'
import { REQUEST_ID_HEADER } from '@/lib/http/headers'
import { log } from '@/lib/log'
import { acceptsJson, frame, type JsonRpcError } from '@/lib/mcp/framing'
import { isAllowedMcpOrigin } from '@/lib/mcp/origin'
import { MODERN_PROTOCOL_VERSION } from '@/lib/mcp/protocol'
import { modernMcp } from '@/lib/mcp/modern'
import { createMcpServer } from '@/lib/mcp/server'
import { toolNames } from '@/lib/mcp/tools'
import { tracedMcp } from '@/lib/mcp/telemetry'

// /api/mcp over HTTP: the SDK's web-standard streamable HTTP transport, stateless (no session id)
// with plain JSON answers, and a fresh server and transport per request. The SDK handles the
// protocol: unknown methods (-32601), requests and notifications. Around it: the origin check,
// Accept (we answer JSON only, so whatever admits application/json is accepted: 406 otherwise),
// Content-Type (415), the body read within its byte limit (413) and nesting depth, parse errors
// (-32700), the JSON-RPC framing rules of the negotiated version (lib/mcp/framing.ts), invalid
// params and unknown tool names as protocol errors (-32602), and the request log.
//
// Two protocol eras on the one endpoint. After the checks both eras share (origin, Accept,
// Content-Type, body size, JSON parse), the request goes to one of two servers built on the same
// tool registry (lib/mcp/tools):
// - 2025 era (2025-11-25, 2025-06-18, 2025-03-26): an `initialize`, or any message that carries no
//   2026-07-28 `_meta` protocol-version claim (and no 2026 MCP-Protocol-Version header). It is
//   served as before by SDK 1.x below, batches and framing rules included.
// - 2026-07-28: everything else, served by the v2 server package's handler (lib/mcp/modern.ts),
//   which also answers the era's own refusals (unsupported version -32022, header mismatch -32020,
//   a 2026 header without the `_meta` envelope -32602).
// The decision is the v2 package's own predicate (`isLegacyRequest`, the code its handler routes
// with), given the body already read. One package cannot serve both as we need: the v2 handler's
// built-in 2025 fallback has no batches (2025-03-26) and none of the framing rules above.

const ROUTE = '/api/mcp'

/** A JSON-RPC error answered over HTTP before any message is read (id null, as the SDK does). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers })
}

// The requests this server answers, with the SDK's own schemas for them.
const REQUEST_SCHEMAS: Record<string, z.ZodType> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
}

/** Why a request must be refused with -32602 before the server sees it, or null. */
function invalidParams(message: JSONRPCRequest): string | null {
  const parsed = REQUEST_SCHEMAS[message.method]?.safeParse(message)
  if (parsed && !parsed.success) return `Invalid params for ${message.method}: ${describeZodError(parsed.error)}`
  const name = message.method === 'tools/call' ? String(message.params?.name) : null
  if (name !== null && !toolNames.has(name)) return `Unknown tool: ${name}. tools/list lists the ${toolNames.size} tools of this server.`
  return null
}

/**
 * Two gaps of SDK 1.x are closed here, before a request reaches the server: params that fail the
 * method's schema come back as -32603 (internal error) instead of -32602, and a call to an
 * unregistered tool as an `isError` result, while the protocol lists unknown tools among protocol
 * errors (-32602). Calls to known tools are reported to `onCall` for the request log.
 */
function screenRequests(transport: WebStandardStreamableHTTPServerTransport, onCall: (name: string) => void) {
  const deliver = transport.onmessage
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const problem = invalidParams(message)
      if (problem) {
        transport
          .send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } })
          .catch((error) => log.error('mcp send failed', { error: String(error) }))
        return
      }
      if (message.method === 'tools/call') onCall(String(message.params?.name))
    }
    deliver?.(message, extra)
  }
}

/** The request body as JSON, or the JSON-RPC answer refusing it (415, 413, -32700). */
async function readMessage(request: Request): Promise<{ value: unknown } | { refusal: Response }> {
  try {
    requireJsonContentType(request)
    return { value: parseJsonText(new TextDecoder().decode(await readBody(request, MCP_BODY_MAX_BYTES))) }
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    if (error.code === 'invalid_input') return { refusal: jsonRpcError(400, ErrorCode.ParseError, `Parse error: ${error.message}`) }
    return { refusal: jsonRpcError(error.status, -32000, error.message) }
  }
}

async function answer(request: Request, requestId: string, onCall: (name: string) => void): Promise<Response> {
  const origin = request.headers.get('origin')
  if (!isAllowedMcpOrigin(origin, request.headers.get('host')))
    return jsonRpcError(
      403,
      -32000,
      `Forbidden: browser pages from ${origin} may not call this server. Its operator can allow the origin with MCP_ALLOWED_ORIGINS.`,
    )
  if (!acceptsJson(request.headers.get('accept')))
    return jsonRpcError(406, -32000, 'Not Acceptable: this server answers with application/json; include it (or */*) in Accept.')
  const read = await readMessage(request)
  if ('refusal' in read) return read.refusal
  return tracedMcp(read.value, request.headers.get('mcp-protocol-version'), () => dispatch(request, requestId, read.value, onCall))
}

/** A message (or batch) read and parsed: answered by the server of its protocol era. */
async function dispatch(request: Request, requestId: string, value: unknown, onCall: (name: string) => void): Promise<Response> {
  if (await isModern(request, value)) return answerModern(request, requestId, value, onCall)
  const framing = frame(value, request.headers.get('mcp-protocol-version'))
  if (framing.kind === 'answer') return Response.json(framing.body, { status: framing.status })

  const server = createMcpServer({ requestId })
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  // Protocol-level errors are already answered to the client; the log only needs them for debugging.
  server.server.onerror = (error) => log.debug('mcp protocol error', { requestId, error: error.message })
  await server.connect(transport)
  screenRequests(transport, onCall)
  try {
    // The body is already parsed; the SDK gets the headers it insists on (we only ever answer JSON).
    const headers = new Headers(request.headers)
    headers.set('accept', 'application/json, text/event-stream')
    const forwarded = new Request(request.url, { method: 'POST', headers })
    const response = await transport.handleRequest(forwarded, { parsedBody: framing.batch ? framing.messages : framing.messages[0] })
    return framing.batch ? asBatchAnswer(response, framing.errors) : response
  } finally {
    await server.close()
  }
}

/**
 * Whether a message belongs to the 2026-07-28 era (the v2 package's routing predicate). A single
 * value that is not a JSON-RPC message has no era: the framing below answers it -32600 with its id,
 * as before.
 */
async function isModern(request: Request, value: unknown): Promise<boolean> {
  if (!Array.isArray(value) && !JSONRPCMessageSchema.safeParse(value).success) return false
  // A version header naming neither 2026-07-28 nor any version at all, on a message without the
  // `_meta` claim, is a 2025-era request with an unsupported version: -32602 listing the versions
  // to initialize with, as before (the v2 predicate would take it as an incomplete 2026 envelope).
  const header = request.headers.get('mcp-protocol-version')
  if (header !== null && header !== MODERN_PROTOCOL_VERSION && !claimsVersion(value)) return false
  return !(await isLegacyRequest(request, value))
}

const claimsVersion = (value: unknown) =>
  !Array.isArray(value) && (value as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== undefined

/** A 2026-07-28 request: the v2 handler, given the parsed body and the request id the tools quote. */
function answerModern(request: Request, requestId: string, body: unknown, onCall: (name: string) => void): Promise<Response> {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null
  if (message && message.method === 'tools/call' && typeof message.params?.name === 'string' && toolNames.has(message.params.name)) onCall(message.params.name)
  const headers = new Headers(request.headers)
  headers.set(REQUEST_ID_HEADER, requestId)
  return modernMcp.fetch(new Request(request.url, { method: 'POST', headers }), { parsedBody: body })
}

/** A batch is answered with an array (the SDK unwraps one answer), with the refused elements' errors added. */
async function asBatchAnswer(response: Response, errors: JsonRpcError[]): Promise<Response> {
  if (response.status === 202) return errors.length ? Response.json(errors) : response
  if (!response.ok || !response.headers.get('content-type')?.includes('application/json')) return response
  const body: unknown = await response.json()
  return Response.json([...(Array.isArray(body) ? body : [body]), ...errors], { status: response.status })
}

// POST /api/mcp - one JSON-RPC message (or batch) to the tool server
export async function handleMcpPost(request: Request): Promise<Response> {
  return served(request, async (requestId, onCall) => {
    try {
      return await answer(request, requestId, onCall)
    } catch (error) {
      log.error('mcp request failed', { requestId, error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) })
      return jsonRpcError(500, ErrorCode.InternalError, `Internal error (request id ${requestId}); retry later.`)
    }
  })
}

// GET, DELETE, PUT and PATCH /api/mcp - 405: a stateless server opens no event stream and has no session to end
export function refuseMcpMethod(request: Request): Promise<Response> {
  return served(request, async () =>
    jsonRpcError(405, -32000, `Method not allowed: ${request.method}. This server is stateless: send JSON-RPC messages with POST.`, { Allow: 'POST' }),
  )
}

/**
 * Runs `handle` in the request envelope (lib/http/envelope.ts: request id, request-log row with the
 * tools it called). MCP answers its own errors as JSON-RPC, so `handle` does not throw.
 */
function served(request: Request, handle: (requestId: string, onCall: (name: string) => void) => Promise<Response>): Promise<Response> {
  return envelope(request, { route: ROUTE, record: true }, async ({ requestId, mcpTools }) => {
    const response = await handle(requestId, (name) => mcpTools.push(name))
    response.headers.set('cache-control', 'no-store')
    return response
  })
}

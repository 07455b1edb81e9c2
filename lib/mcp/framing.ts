import { ErrorCode, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { MCP_BATCH_MAX } from '@/lib/mcp/cost'

// JSON-RPC framing of one POST to /api/mcp, decided before the SDK sees it, by the rules of the
// protocol version in force (the SDK 1.x transport answers -32700 for any invalid message, collapses
// duplicate ids, unwraps one-item batches, answers `[]` with 202 and accepts batches whatever the
// version):
// - a value that is not a JSON-RPC message is an Invalid Request (-32600), in a batch per element;
// - batches exist only in protocol version 2025-03-26 (added there, removed in 2025-06-18); under
//   any other version a batch is refused whole with -32600, and so is a batch of more than
//   MCP_BATCH_MAX messages (one error per element: each one costs the client's rate limit);
// - `[]` is one Invalid Request error (JSON-RPC 2.0 §6), a batch's answer is always an array, and a
//   request id repeated within a batch is answered -32600 after its first use.

/** The version a request without MCP-Protocol-Version is taken to speak (the transport specification's rule: https://modelcontextprotocol.io/specification/2025-06-18/basic/transports). */
export const ASSUMED_PROTOCOL_VERSION = '2025-03-26'
const BATCH_VERSIONS = new Set(['2025-03-26'])

export interface JsonRpcError {
  jsonrpc: '2.0'
  id: string | number | null
  error: { code: number; message: string; data?: unknown }
}

export type Framing =
  /** Hand `messages` to the SDK; answer an array (when `batch`) with `errors` added. */
  | { kind: 'deliver'; messages: JSONRPCMessage[]; batch: boolean; errors: JsonRpcError[] }
  /** Answer at once. */
  | { kind: 'answer'; status: number; body: JsonRpcError | JsonRpcError[] }

const invalid = (id: unknown, message: string): JsonRpcError => ({
  jsonrpc: '2.0',
  id: typeof id === 'string' || typeof id === 'number' ? id : null,
  error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` },
})

const idOf = (value: unknown) => (value && typeof value === 'object' && 'id' in value ? (value as { id: unknown }).id : null)

function describe(value: unknown): string {
  const parsed = JSONRPCMessageSchema.safeParse(value)
  if (parsed.success) return ''
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON-RPC message object'
  if ((value as { jsonrpc?: unknown }).jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"'
  return 'not a valid request, notification or response (check "method", "id" and "params")'
}

/** An unsupported MCP-Protocol-Version: -32602 with the versions this server speaks, so a client can fall back. */
export function unsupportedVersion(requested: string, id: unknown): JsonRpcError {
  return {
    jsonrpc: '2.0',
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Unsupported protocol version ${requested}. This server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}; initialize with one of them.`,
      data: { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
    },
  }
}

export function frame(value: unknown, headerVersion: string | null): Framing {
  if (headerVersion !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(headerVersion))
    return { kind: 'answer', status: 400, body: unsupportedVersion(headerVersion, Array.isArray(value) ? null : idOf(value)) }
  if (!Array.isArray(value)) {
    const problem = describe(value)
    return problem
      ? { kind: 'answer', status: 400, body: invalid(idOf(value), problem) }
      : { kind: 'deliver', messages: [value as JSONRPCMessage], batch: false, errors: [] }
  }
  const version = headerVersion ?? ASSUMED_PROTOCOL_VERSION
  if (value.length === 0) return { kind: 'answer', status: 400, body: invalid(null, 'an empty batch') }
  if (!BATCH_VERSIONS.has(version))
    return { kind: 'answer', status: 400, body: invalid(null, `JSON-RPC batches are not part of protocol version ${version}; send one message per request`) }
  if (value.length > MCP_BATCH_MAX) {
    const problem = `a batch carries at most ${MCP_BATCH_MAX} messages and this one has ${value.length}; send them in batches of ${MCP_BATCH_MAX} or fewer`
    return { kind: 'answer', status: 400, body: value.map((item) => invalid(idOf(item), problem)) }
  }
  const messages: JSONRPCMessage[] = []
  const errors: JsonRpcError[] = []
  const seen = new Set<string | number>()
  for (const item of value) {
    const problem = describe(item)
    if (problem) errors.push(invalid(idOf(item), problem))
    else if ((item as { method?: string }).method === 'initialize') errors.push(invalid(idOf(item), 'initialize must not be part of a batch'))
    else {
      const message = item as JSONRPCMessage
      const id = 'id' in message && 'method' in message ? message.id : undefined
      if (id !== undefined && seen.has(id)) errors.push(invalid(id, `id ${JSON.stringify(id)} is used twice in this batch`))
      else {
        if (id !== undefined) seen.add(id)
        messages.push(message)
      }
    }
  }
  if (messages.length === 0) return { kind: 'answer', status: 400, body: errors }
  return { kind: 'deliver', messages, batch: true, errors }
}

/** Accept: we answer JSON only, so any field that admits application/json will do (absent admits all). */
export function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    if (q && Number(q.slice(2)) === 0) return false
    return type === 'application/json' || type === 'application/*' || type === '*/*'
  })
}

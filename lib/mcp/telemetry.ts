import 'server-only'
import { context, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api'
import { recordDuration, SpanKind, telemetryOn, tracer } from '@/lib/telemetry/telemetry'

// The MCP semantic conventions' server spans: one per JSON-RPC message of a POST (a batch has
// several), named `{mcp.method.name} {target}`, with `jsonrpc.request.id`, `gen_ai.tool.name` for
// tools/call, and `error.type` when the answer is an error (its JSON-RPC code) or a tool result
// with isError (`tool_error`). No `mcp.session.id`: the server is stateless. Every message of a
// batch is answered by the one response, so each span lasts the whole exchange.

interface Message {
  method: string
  id?: string | number | null
  params?: { name?: unknown; _meta?: Record<string, unknown> }
}
interface Answer {
  id?: string | number | null
  error?: { code?: unknown }
  result?: { isError?: unknown }
}

const METRIC_KEYS = ['mcp.method.name', 'gen_ai.tool.name', 'error.type', 'mcp.protocol.version', 'network.transport'] as const

const isMessage = (value: unknown): value is Message => typeof value === 'object' && value !== null && typeof (value as Message).method === 'string'

function attributesOf(message: Message, protocolVersion: string | null): Attributes {
  const tool = message.method === 'tools/call' && typeof message.params?.name === 'string' ? message.params.name : undefined
  const claimed = message.params?._meta?.['io.modelcontextprotocol/protocolVersion']
  const version = typeof claimed === 'string' ? claimed : protocolVersion
  return {
    'mcp.method.name': message.method,
    ...(message.id !== undefined && message.id !== null ? { 'jsonrpc.request.id': String(message.id) } : {}),
    ...(tool ? { 'gen_ai.tool.name': tool, 'gen_ai.operation.name': 'execute_tool' } : {}),
    ...(version ? { 'mcp.protocol.version': version } : {}),
    'jsonrpc.protocol.version': '2.0',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
  }
}

/** The `error.type` of each answered id: its JSON-RPC error code, or tool_error. */
async function failuresOf(response: Response): Promise<Map<string, string>> {
  const failures = new Map<string, string>()
  if (!response.headers.get('content-type')?.includes('application/json')) return failures
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null)
  for (const answer of (Array.isArray(body) ? body : [body]) as (Answer | null)[]) {
    if (!answer || answer.id === undefined || answer.id === null) continue
    if (answer.error) failures.set(String(answer.id), String(answer.error.code ?? '_OTHER'))
    else if (answer.result?.isError === true) failures.set(String(answer.id), 'tool_error')
  }
  return failures
}

/** Runs `answer` (the server's handling of `body`) inside the MCP spans of its messages; with telemetry off, just `answer`. */
export async function tracedMcp(body: unknown, protocolVersion: string | null, answer: () => Promise<Response>): Promise<Response> {
  if (!telemetryOn) return answer()
  const messages = (Array.isArray(body) ? body : [body]).filter(isMessage)
  if (messages.length === 0) return answer()
  const started = performance.now()
  const spans: [Message, Attributes, Span][] = messages.map((message) => {
    const attributes = attributesOf(message, protocolVersion)
    const tool = attributes['gen_ai.tool.name']
    return [message, attributes, tracer().startSpan(tool ? `${message.method} ${tool}` : message.method, { kind: SpanKind.SERVER, attributes })]
  })
  // A single message's span is the parent of what it does (the tool's upstream and database spans).
  const run = () => (spans.length === 1 ? context.with(trace.setSpan(context.active(), spans[0][2]), answer) : answer())
  let failures = new Map<string, string>()
  let thrown: string | undefined
  try {
    const response = await run()
    failures = await failuresOf(response)
    if (response.status >= 400 && failures.size === 0) thrown = String(response.status)
    return response
  } catch (error) {
    thrown = error instanceof Error ? error.name : '_OTHER'
    throw error
  } finally {
    const seconds = (performance.now() - started) / 1000
    for (const [message, attributes, span] of spans) {
      const failure = (message.id !== undefined && message.id !== null ? failures.get(String(message.id)) : undefined) ?? thrown
      if (failure) {
        attributes['error.type'] = failure
        span.setAttribute('error.type', failure)
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
      span.end()
      const picked: Attributes = {}
      for (const key of METRIC_KEYS) if (attributes[key] !== undefined) picked[key] = attributes[key]
      recordDuration('mcp.server.operation.duration', 'Duration of MCP requests as the server handled them', seconds, picked)
    }
  }
}

import { config, type Config } from '@/lib/config'
import { ERROR_FORMATS, type ErrorFormat } from '@/lib/http/errors'
import { type ErrorCode } from '@/lib/errors'
import { internalKeyProblem } from '@/lib/http/internal-key'
import type { Operation } from '@/lib/http/operation'
import { rateLimitMessage } from '@/lib/ratelimit/limiter'
import { INTERNAL_ERROR_MESSAGE } from '@/lib/http/envelope'
import { UpstreamStatus, UpstreamTimeout } from '@/lib/upstream/http'
import recorded from '@/lib/openapi/examples.json'

// The document's examples. Answers to the operations' example requests are recorded by
// `npm run openapi:examples` (scripts/openapi-examples.ts) from the real handlers fed with recorded
// upstream payloads; errors no example request produces get one shared example per error code,
// worded by the code that raises it, in the operation's error format.

export interface RecordedAnswer {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export interface RecordedExamples {
  /** operationId → example name → answer */
  operations: Record<string, Record<string, RecordedAnswer>>
  /** MCP example name → answer */
  mcp: Record<string, RecordedAnswer>
}

export const recordedExamples = recorded as RecordedExamples

export interface ExampleObject {
  summary: string
  description?: string
  value: unknown
}

export type Examples = Record<string, ExampleObject>

/** Request id of the shared error examples (recorded answers carry their own). */
const EXAMPLE_REQUEST_ID = '0f6d2f4e-8c1a-4b7e-9d3f-5a2b6c8e1f04'

/** The message each error code carries when no recorded answer shows it; a code not listed gets its status text. */
function sharedMessage(code: ErrorCode, statusText: string, c: Config): string {
  switch (code) {
    case 'forbidden':
      return internalKeyProblem(null) ?? statusText
    case 'rate_limited':
      return rateLimitMessage(c.RATE_LIMIT_MAX, c.RATE_LIMIT_WINDOW_S, 17)
    case 'internal':
      return INTERNAL_ERROR_MESSAGE
    case 'upstream_failed':
      return new UpstreamStatus('The upstream service', 503, '').message
    case 'upstream_timeout':
      return new UpstreamTimeout('The upstream service', c.UPSTREAM_TIMEOUT_MS).message
    default:
      return `${statusText}.`
  }
}

/** One example per error code, in the given wire format. */
export function sharedErrorExamples(codes: readonly ErrorCode[], format: ErrorFormat, statusText: string, c: Config = config): Examples {
  return Object.fromEntries(
    codes.map((code) => [
      code,
      { summary: code.replaceAll('_', ' '), value: ERROR_FORMATS[format].body(code, sharedMessage(code, statusText, c), EXAMPLE_REQUEST_ID) },
    ]),
  )
}

interface SentExample {
  name: string
  summary: string
  /** What was sent, in Markdown. */
  request?: string
}

/** Recorded answers of example requests, by HTTP status (a body, or the headers of an answer without one). */
export function answersByStatus(examples: readonly SentExample[], answers: Record<string, RecordedAnswer> = {}): Map<number, Examples> {
  const byStatus = new Map<number, Examples>()
  for (const { name, summary, request } of examples) {
    const answer = answers[name]
    if (!answer || (answer.body === undefined && answer.headers === undefined)) continue
    const example = { summary, ...(request ? { description: request } : {}), value: answer.body ?? answer.headers }
    byStatus.set(answer.status, { ...byStatus.get(answer.status), [name]: example })
  }
  return byStatus
}

/** The request line of an operation's example (`GET /api/ipcheck?ip=24.48.0.1`), and its body. */
function requestOf(op: Operation, example: NonNullable<Operation['examples']>[number]): string {
  let path = op.path
  for (const [name, value] of Object.entries(example.params ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value))
  const query = new URLSearchParams(example.query).toString()
  const line = `\`${op.method} /api${path}${query ? `?${query}` : ''}\``
  return example.body === undefined ? line : `${line} with \`${JSON.stringify(example.body)}\``
}

export const recordedByStatus = (op: Operation) =>
  answersByStatus(
    (op.examples ?? []).map((e) => ({ ...e, request: requestOf(op, e) })),
    recordedExamples.operations[op.operationId],
  )

const succeeded = (op: Operation, name: string) => (recordedExamples.operations[op.operationId]?.[name]?.status ?? 500) < 400

/** Example bodies of the operation's accepted requests; a refused one shows in its error answer's description. */
export function requestBodyExamples(op: Operation): Examples | undefined {
  const accepted = (op.examples ?? []).filter((e) => e.body !== undefined && succeeded(op, e.name))
  if (accepted.length === 0) return undefined
  return Object.fromEntries(accepted.map((e) => [e.name, { summary: e.summary, value: e.body }]))
}

/** Error examples of one documented error status: the recorded answers, or one shared example per code. */
export function errorExamples(
  op: Operation,
  status: number,
  codes: readonly ErrorCode[],
  format: ErrorFormat,
  statusText: string,
  c: Config = config,
): Examples {
  return recordedByStatus(op).get(status) ?? sharedErrorExamples(codes, format, statusText, c)
}

type Json = Record<string, unknown>

/** A value from the URL as its parameter's schema types it (`count=3` is the integer 3). */
function typedValue(schema: Json | undefined, raw: string): unknown {
  const types = [schema?.type].flat()
  if ((types.includes('integer') || types.includes('number')) && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw)
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true'
  return raw
}

/**
 * Query and path parameters get the values of the operation's successful example requests, so
 * the reference's request builder starts from a request that works; an answer without a body
 * (a redirect) gets its recorded headers as header examples.
 */
export function addParameterExamples(document: Json, ops: readonly Operation[]) {
  const paths = document.paths as Record<string, Record<string, Json>>
  for (const op of ops) {
    const operation = paths[op.path]?.[op.method.toLowerCase()]
    const answers = recordedExamples.operations[op.operationId] ?? {}
    const ok = (op.examples ?? []).filter((e) => succeeded(op, e.name))
    if (!operation || ok.length === 0) continue
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      const from = parameter.in === 'query' ? 'query' : parameter.in === 'path' ? 'params' : null
      if (!from) continue
      const examples = ok.filter((e) => e[from]?.[String(parameter.name)] !== undefined)
      if (examples.length)
        parameter.examples = Object.fromEntries(
          examples.map((e) => [e.name, { summary: e.summary, value: typedValue(parameter.schema as Json, e[from]![String(parameter.name)]) }]),
        )
    }
    const status = String(op.success.status ?? 200)
    const headers = (operation.responses as Record<string, Json>)[status]?.headers as Record<string, Json> | undefined
    for (const e of ok) for (const [name, value] of Object.entries(answers[e.name].headers ?? {})) if (headers?.[name]) headers[name].example = value
  }
}

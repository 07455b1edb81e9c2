import 'server-only'
import { setTimeout as sleep } from 'node:timers/promises'
import { fetch as undiciFetch, type Dispatcher } from 'undici'
import type { z } from 'zod'
import { config } from '@/lib/config'
import { readCapped } from '@/lib/http/body'
import { AppError, causeMessage } from '@/lib/errors'
import { log, measure, measuring } from '@/lib/log'

// The one outbound HTTP path. Every adapter calls upstreamFetch/upstreamJson, never fetch: a
// deadline covering headers and body, bounded retries with backoff for idempotent requests on
// timeouts, network errors and 5xx, a response-size cap, guarded JSON parsing and typed errors.

export class UpstreamTimeout extends AppError {
  constructor(
    readonly upstream: string,
    ms: number,
  ) {
    super('upstream_timeout', `${upstream} did not answer within ${ms} ms; try again shortly.`, { upstream })
  }
}

// Messages are in our own words; what the upstream said (its error body, addresses, field paths)
// goes into `details.detail`, which is logged and never sent to the client.

export class UpstreamStatus extends AppError {
  constructor(
    readonly upstream: string,
    readonly upstreamStatus: number,
    readonly bodySnippet: string,
  ) {
    super('upstream_failed', `${upstream} answered HTTP ${upstreamStatus}.`, { upstream, upstreamStatus, detail: bodySnippet })
  }
}

export class UpstreamMalformed extends AppError {
  constructor(
    readonly upstream: string,
    reason: string,
    detail?: string,
  ) {
    super('upstream_failed', `${upstream} sent a response that could not be used (${reason}).`, { upstream, detail })
  }
}

export class UpstreamUnreachable extends AppError {
  constructor(
    readonly upstream: string,
    reason: string,
  ) {
    super('upstream_failed', `${upstream} could not be reached.`, { upstream, detail: reason })
  }
}

export interface UpstreamRequest {
  method?: string
  headers?: Record<string, string>
  body?: string | Uint8Array
  /** Deadline for the whole exchange, body included. Default UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number
  /** Extra attempts for idempotent methods. Default UPSTREAM_RETRIES (0 for non-idempotent). */
  retries?: number
  maxBytes?: number
  /** Statuses returned to the caller instead of thrown (e.g. 404 for "not found" answers). */
  acceptStatus?: number[]
  /** Do not follow redirects (MTA-STS policy fetches). */
  noRedirects?: boolean
  /** A dispatcher from the undici package (e.g. an Agent trusting a private CA for one host); the request then goes through that package's fetch. */
  dispatcher?: Dispatcher
}

export interface UpstreamResponse {
  status: number
  headers: Headers
  body: Uint8Array
  text(): string
  url: string
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The URL a span may show: no credentials, and every query value replaced (an upstream may take a key there). */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    for (const key of new Set(u.searchParams.keys())) u.searchParams.set(key, 'REDACTED')
    return u.href
  } catch {
    return 'unparsable'
  }
}

const CLIENT_METRIC_KEYS = ['http.request.method', 'server.address', 'server.port', 'http.response.status_code', 'error.type'] as const

/** One attempt in a client span of its own (a retry is a new span, as the HTTP conventions have it). */
function tracedAttempt(upstream: string, url: string, req: UpstreamRequest, timeoutMs: number, resend: number): Promise<UpstreamResponse> {
  if (!measuring()) return attempt(upstream, url, req, timeoutMs)
  const method = (req.method ?? 'GET').toUpperCase()
  let host: URL | undefined
  try {
    host = new URL(url)
  } catch {
    // attempt() reports the unusable URL
  }
  const port = host ? Number(host.port || (host.protocol === 'https:' ? 443 : 80)) : undefined
  return measure(
    {
      name: method,
      kind: 'client',
      attributes: {
        'http.request.method': method,
        'url.full': redactedUrl(url),
        ...(host ? { 'server.address': host.hostname, 'server.port': port } : {}),
        ...(resend > 0 ? { 'http.request.resend_count': resend } : {}),
        'utility_api.upstream': upstream,
      },
      metric: { name: 'http.client.request.duration', description: 'Duration of upstream HTTP requests', keys: CLIENT_METRIC_KEYS },
      outcome: (res) => ({ 'http.response.status_code': res.status }),
      failure: (error) =>
        error instanceof UpstreamStatus ? { 'http.response.status_code': error.upstreamStatus, 'error.type': String(error.upstreamStatus) } : {},
    },
    () => attempt(upstream, url, req, timeoutMs),
  )
}

async function attempt(upstream: string, url: string, req: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  try {
    const init = {
      method: req.method ?? 'GET',
      headers: { 'user-agent': 'utility-api/1.1 (+https://github.com)', ...req.headers },
      body: req.body,
      signal: controller.signal,
      redirect: req.noRedirects ? ('manual' as const) : ('follow' as const),
    }
    // A dispatcher goes only to the fetch of the same undici package: the runtime's own fetch
    // bundles another undici (6 on Node 20 and 22, 7 on 24, 8 on 26) whose handler contract differs,
    // and on Node 26 it rejects a package Agent ("invalid onError method").
    // (The package's Response differs from the DOM typings only in its iterators' types.)
    const res = req.dispatcher
      ? ((await undiciFetch(url, { ...init, dispatcher: req.dispatcher })) as unknown as Response)
      : await fetch(url, { ...init, body: req.body as BodyInit | undefined, cache: 'no-store' })
    const maxBytes = req.maxBytes ?? config.UPSTREAM_MAX_BYTES
    const body = await readCapped(res, maxBytes, () => new UpstreamMalformed(upstream, `body larger than ${maxBytes} bytes`))
    const decoded = () => new TextDecoder().decode(body)
    if (!res.ok && !(req.acceptStatus ?? []).includes(res.status)) {
      throw new UpstreamStatus(upstream, res.status, decoded().slice(0, 300))
    }
    return { status: res.status, headers: res.headers, body, text: decoded, url: res.url || url }
  } catch (error) {
    if (error instanceof AppError) throw error
    if (controller.signal.aborted) throw new UpstreamTimeout(upstream, timeoutMs)
    throw new UpstreamUnreachable(upstream, causeMessage(error))
  } finally {
    clearTimeout(timer)
  }
}

const retryable = (error: unknown) =>
  error instanceof UpstreamTimeout || error instanceof UpstreamUnreachable || (error instanceof UpstreamStatus && error.upstreamStatus >= 500)

export async function upstreamFetch(upstream: string, url: string, req: UpstreamRequest = {}): Promise<UpstreamResponse> {
  const method = (req.method ?? 'GET').toUpperCase()
  const timeoutMs = req.timeoutMs ?? config.UPSTREAM_TIMEOUT_MS
  const retries = IDEMPOTENT.has(method) ? (req.retries ?? config.UPSTREAM_RETRIES) : 0
  // One deadline for all attempts together, so retries never stretch the caller's time budget.
  const deadline = Date.now() + timeoutMs
  for (let n = 0; ; n++) {
    const left = deadline - Date.now()
    try {
      return await tracedAttempt(upstream, url, req, Math.max(1, left), n)
    } catch (error) {
      const wait = 100 * 2 ** n + Math.random() * 50
      if (n >= retries || !retryable(error) || deadline - Date.now() < wait + 50) {
        if (error instanceof UpstreamTimeout) throw new UpstreamTimeout(upstream, timeoutMs)
        throw error
      }
      log.debug('upstream retry', { upstream, attempt: n + 1, reason: error instanceof Error ? error.message : String(error) })
      await sleep(wait)
    }
  }
}

/** Parses JSON defensively and, with a schema, validates it; anything unusable is UpstreamMalformed. */
export function parseUpstreamJson<S extends z.ZodType>(upstream: string, text: string, schema: S): z.output<S>
export function parseUpstreamJson(upstream: string, text: string): unknown
export function parseUpstreamJson(upstream: string, text: string, schema?: z.ZodType): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new UpstreamMalformed(upstream, 'invalid JSON')
  }
  if (!schema) return value
  const parsed = schema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new UpstreamMalformed(upstream, 'unexpected shape', `at ${issue?.path.join('.') || 'root'}: ${issue?.message}`)
  }
  return parsed.data
}

export async function upstreamJson<S extends z.ZodType>(
  upstream: string,
  url: string,
  schema: S,
  req: UpstreamRequest = {},
): Promise<{ data: z.output<S>; response: UpstreamResponse }> {
  const response = await upstreamFetch(upstream, url, { ...req, headers: { accept: 'application/json', ...req.headers } })
  return { data: parseUpstreamJson(upstream, response.text(), schema), response }
}

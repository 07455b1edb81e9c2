import { processSlot } from '@/lib/process-slot'

// The hand-off point between the request path and the request log. Recording must never delay or
// fail a response, so this only passes the entry to whichever sink the process registered
// (instrumentation.ts registers the database-backed one); with none registered it does nothing.
// RequestLogEntry is the entry's one shape up to lib/request-log/row.ts, which maps it to the row
// the table stores (and the journal holds) once.

export interface RequestLogEntry {
  time: Date
  requestId: string
  method: string
  /** Route template (`/api/directory/convertid/{id}`), or the raw path when no route matched. */
  route: string
  /** Query string with values redacted. */
  query: string
  status: number
  durationMs: number
  clientIp: string
  country: string | null
  userAgent: string | null
  referrer: string | null
  apiKeyPresent: boolean
  rateLimited: boolean
  mcpTool: string | null
}

export type RequestLogSink = (entry: RequestLogEntry) => void

const sinkSlot = processSlot<RequestLogSink>('request-log-sink')

export function setRequestLogSink(sink: RequestLogSink | undefined) {
  sinkSlot.set(sink)
}

export function recordRequest(entry: RequestLogEntry) {
  const sink = sinkSlot.get()
  if (!sink) return
  try {
    sink(entry)
  } catch {
    // a logging failure is never the caller's problem
  }
}

/** `?ip=1.2.3.4&ref=x` → `ip=***&ref=***`: parameter names kept, values never stored. */
export function redactQuery(search: string): string {
  const params = new URLSearchParams(search)
  return [...new Set(params.keys())].map((k) => `${encodeURIComponent(k)}=***`).join('&')
}

/**
 * What the code that answered knows about a request, in the entry's own fields (the rest comes from
 * the request), and `startedAt`: performance.now() when handling began, omitted for answers that
 * did no work (duration 0).
 */
export type AnsweredRequest = Pick<RequestLogEntry, 'requestId' | 'route' | 'status' | 'clientIp'> &
  Partial<Pick<RequestLogEntry, 'rateLimited' | 'mcpTool'>> & { startedAt?: number }

/** Records one answered request: method, redacted query, country, user agent, referrer and key presence come from `req`. */
export function recordAnswer(req: Request, a: AnsweredRequest) {
  const h = req.headers
  const url = new URL(req.url)
  recordRequest({
    time: new Date(),
    requestId: a.requestId,
    method: req.method,
    route: a.route,
    query: redactQuery(url.search),
    status: a.status,
    durationMs: a.startedAt === undefined ? 0 : Math.round((performance.now() - a.startedAt) * 100) / 100,
    clientIp: a.clientIp,
    country: h.get('cf-ipcountry') ?? h.get('x-vercel-ip-country') ?? null,
    userAgent: h.get('user-agent'),
    referrer: h.get('referer') ?? url.searchParams.get('ref'),
    apiKeyPresent: h.has('x-tc-api-key'),
    rateLimited: a.rateLimited ?? false,
    mcpTool: a.mcpTool ?? null,
  })
}

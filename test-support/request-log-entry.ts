import type { RequestLogEntry } from '@/lib/http/request-log'

/** A request-log entry as the request path records it, with `changes` applied. */
export function requestLogEntry(changes: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    time: new Date(),
    requestId: 'request-1',
    method: 'GET',
    route: '/api/health',
    query: '',
    status: 200,
    durationMs: 1,
    clientIp: '203.0.113.5',
    country: null,
    userAgent: null,
    referrer: null,
    apiKeyPresent: false,
    rateLimited: false,
    mcpTool: null,
    ...changes,
  }
}

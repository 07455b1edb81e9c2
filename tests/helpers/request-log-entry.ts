import type { RequestLogEntry } from '@/lib/http/request-log'

/** A request-log entry as the request path records it, for the writer's tests. */
export const requestLogEntry = (requestId: string, time = new Date()): RequestLogEntry => ({
  time,
  requestId,
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
})

import { randomUUID } from 'node:crypto'
import { REQUEST_ID_HEADER } from '@/lib/http/headers'

// A request's id: the one it came with when that is a UUID (a trusted edge's, or a client's own),
// a new one otherwise. The proxy decides it; with OpenTelemetry on, server.mjs decides it first
// (lib/telemetry/server.ts) so that every span of the request carries it, and the proxy keeps it.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

export function requestIdOf(given: string | null | undefined): string {
  return given && UUID.test(given) ? given.toLowerCase() : randomUUID()
}

export const requestIdFrom = (headers: Headers): string => requestIdOf(headers.get(REQUEST_ID_HEADER))

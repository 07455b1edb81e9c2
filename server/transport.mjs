// What server.mjs does before a request reaches Next: answers the requests Node's parser refuses
// (431, 400, 408) in the API's JSON error envelope with a request id, and caps request bodies.
import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'

// Error codes of lib/http/errors.ts (a unit test keeps them in step).
export const TRANSPORT_ERRORS = {
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'Request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request was not received in time.'],
  default: [400, 'invalid_input', 'Malformed HTTP request.'],
}

/** The raw HTTP answer to a request Node's parser refused. */
export function clientErrorResponse(code, requestId = randomUUID()) {
  const [status, errorCode, message] = TRANSPORT_ERRORS[code] ?? TRANSPORT_ERRORS.default
  return rawErrorResponse(status, errorCode, message, requestId)
}

function rawErrorResponse(status, errorCode, message, requestId) {
  const body = JSON.stringify({ error: { code: errorCode, message, requestId } })
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  )
}

/**
 * The origin-form target (RFC 9112 §3.2) of a request. A client may send the absolute form
 * (`GET http://host/path`); for the host its Host header names, that is the same request and only
 * the path and query go on. For any other authority it is a proxy request this server must neither
 * serve nor redirect to: null, answered 400 by answerForeignTarget.
 */
export function originFormTarget(url, host) {
  if (url.startsWith('/') || url === '*') return url
  let target
  try {
    target = new URL(url)
  } catch {
    return null
  }
  const sameHost = typeof host === 'string' && target.host.toLowerCase() === host.toLowerCase()
  return ['http:', 'https:'].includes(target.protocol) && sameHost ? `${target.pathname}${target.search}` : null
}

/** The 400 for a request target naming another host, in the envelope, closing the connection. */
export function answerForeignTarget(socket, requestId = randomUUID()) {
  socket.end(rawErrorResponse(400, 'invalid_input', 'The request target names another host: send the path only, with that host in Host.', requestId))
}

/** server.on('clientError') handler. */
export function answerClientError(error, socket) {
  // Nothing can be answered on a reset socket, nor once a response has begun on it.
  if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) return socket.destroy()
  socket.end(clientErrorResponse(error.code))
}

/**
 * Lets at most `limit + 1` bytes of the request body into the application, then ends the body
 * there and discards the rest as it arrives (the connection stays usable). The operation sees more
 * than its limit and answers 413 in its own error shape; memory never holds more than that.
 * IncomingMessage receives body chunks through push(), so the cap applies as the body streams in,
 * before any reader (Next's proxy buffers whole bodies) sees them.
 */
export function capRequestBody(req, limit) {
  const push = req.push
  const most = limit + 1
  let seen = 0
  let cut = false
  req.push = function (chunk, encoding) {
    if (cut) return true // keep the socket flowing: the rest is read and dropped
    if (chunk === null) return push.call(this, chunk, encoding)
    seen += chunk.length
    if (seen <= most) return push.call(this, chunk, encoding)
    cut = true
    const keep = chunk.length - (seen - most)
    if (keep > 0) push.call(this, chunk.subarray(0, keep))
    // Ended early, the body looks complete to its readers, so finishing it does not destroy the
    // socket (an incomplete IncomingMessage takes its socket down with it, resetting the client).
    this.complete = true
    push.call(this, null)
    return true
  }
}

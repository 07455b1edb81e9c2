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
 * (`GET http://host/path`); when its authority is one of this server's own (`ownHosts`: the
 * listening address, loopback, PUBLIC_BASE_URL, QUERY_APP_HOST) that authority stands for Host and
 * only the path and query go on. Any other authority is a proxy request this server must neither
 * serve nor redirect to: null, answered 400 by answerForeignTarget.
 */
export function originFormTarget(req, ownHosts) {
  if (req.url.startsWith('/') || req.url === '*') return req.url
  let target
  try {
    target = new URL(req.url)
  } catch {
    return null
  }
  if (!['http:', 'https:'].includes(target.protocol) || !ownHosts.has(target.host.toLowerCase())) return null
  req.headers.host = target.host
  return `${target.pathname}${target.search}`
}

/** The authorities (host[:port], as URL.host spells them) an absolute-form target may name. */
export function ownAuthorities({ hostname, port, publicBaseUrl, queryAppHost }) {
  const hosts = ['localhost', '127.0.0.1', '[::1]', hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname].map((h) => `${h}:${port}`)
  for (const url of [publicBaseUrl, queryAppHost && `http://${queryAppHost}`]) {
    try {
      if (url) hosts.push(new URL(url).host)
    } catch {
      // a malformed setting is the application's to report
    }
  }
  return new Set(hosts.map((h) => h.toLowerCase()))
}

/** The 400 for a request target naming another host, in the envelope, closing the connection. */
export function answerForeignTarget(socket, requestId = randomUUID()) {
  socket.end(rawErrorResponse(400, 'invalid_input', 'The request target names a host this server does not serve; send the path only (origin form).', requestId))
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

// Production entry (`npm start`): Next's request handler behind a plain node:http server, so the
// TCP peer address can be stamped on every request (clients cannot forge it) and the process can
// drain and flush its request log on SIGTERM/SIGINT.
import http from 'node:http'
import next from 'next'
import { drainOnSignals } from './server/drain.mjs'
import { answerClientError, capRequestBody } from './server/transport.mjs'

const port = Number(process.env.PORT ?? 3000)
const hostname = process.env.HOST ?? '0.0.0.0'
const CONNECTION_IP_HEADER = 'x-tc-connection-ip'
globalThis[Symbol.for('utility-api.connection-ip-stamped')] = true
// Registered by the application at start-up (lib/http/body-limit.ts): the byte limit of a request's body.
const BODY_LIMIT = Symbol.for('utility-api.body-limit')

// Next builds its internal request URLs from `hostname` and spells every loopback address as
// localhost; a different spelling (127.0.0.1) turns proxy.ts rewrites into HTTP round trips to
// ourselves. The listening address below is unaffected.
const app = next({ dev: false, dir: import.meta.dirname, hostname: 'localhost', port })
const handle = app.getRequestHandler()
await app.prepare()

const server = http.createServer((req, res) => {
  req.headers[CONNECTION_IP_HEADER] = req.socket.remoteAddress ?? ''
  const limit = globalThis[BODY_LIMIT]?.(req.method, req.url, req.headers)
  if (limit !== undefined) capRequestBody(req, limit)
  handle(req, res)
})
server.keepAliveTimeout = 65_000
server.on('clientError', answerClientError)
drainOnSignals(server)
server.listen(port, hostname, () => {
  console.log(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on http://${hostname}:${port}` }))
})

// Production entry (`npm start`): Next's request handler behind a plain node:http server, so the
// TCP peer address can be stamped on every request (clients cannot forge it) and the process can
// drain and flush its request log on SIGTERM/SIGINT. It listens on 127.0.0.1 unless HOST says
// otherwise, and tells the application the listening address and this start's local-operator key
// (lib/access/local-operator.ts), whose link it prints with the other surfaces' addresses.
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import v8 from 'node:v8'
import next from 'next'
import { drainOnSignals } from './server/drain.mjs'
import { processSlotKey } from './server/process-slot.mjs'
import { answerClientError, answerForeignTarget, capRequestBody, originFormTarget, ownAuthorities } from './server/transport.mjs'

// Sizing on the embedded defaults (no DATABASE_URL: one process, PGlite inside it), measured with
// the bench scenario `memory` (docs/benchmarks.md):
// - WebAssembly (PGlite, the filter parser) is compiled by V8's baseline compiler only: tiering
//   hot functions up to the optimising compiler kept about 60 MB more resident (its code and
//   compile-time memory) for little gain on an embedded database's small queries. On x64 and
//   arm64, where the baseline compiler handles every instruction.
// - The old generation grows by 15 % past its live size before the next full collection, instead
//   of V8's up to 4x for a process with gigabytes at hand: under a minute of query pages the heap
//   otherwise swelled to 260 MB around 100 to 150 MB of live objects, with no gain in throughput.
// With DATABASE_URL (a deployment), V8's defaults stay.
if (!process.env.DATABASE_URL) {
  if (['x64', 'arm64'].includes(process.arch)) v8.setFlagsFromString('--liftoff-only')
  v8.setFlagsFromString('--heap-growing-percent=15')
}

const port = Number(process.env.PORT ?? 3000)
const hostname = process.env.HOST || '127.0.0.1'
const wildcard = ['0.0.0.0', '::', '[::]'].includes(hostname)
// The origin the start-up lines print (a wildcard listener shown as 127.0.0.1); refusals quote it.
const printedOrigin = `http://${wildcard ? '127.0.0.1' : hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`
const CONNECTION_IP_HEADER = 'x-tc-connection-ip'
globalThis[processSlotKey('connection-ip-stamped')] = true
// Set to 1 when the raw request came through a relay (before Next adds X-Forwarded-* itself).
const RELAYED_HEADER = 'x-tc-relayed'
const RELAY_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-server',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  'true-client-ip',
  'fastly-client-ip',
  'via',
]

// The local operator's key for this start: LOCAL_OPERATOR_KEY when set (tests), random otherwise.
const presetKey = process.env.LOCAL_OPERATOR_KEY
if (presetKey && !/^[A-Za-z0-9_-]{16,}$/.test(presetKey)) {
  console.error('LOCAL_OPERATOR_KEY must be at least 16 letters, digits, - or _')
  process.exit(1)
}
const localOperator = { key: presetKey || randomBytes(24).toString('base64url'), listening: undefined, origin: printedOrigin, port: undefined }
globalThis[processSlotKey('local-operator')] = localOperator
// Registered by the application at start-up (lib/startup.ts): what it runs on, for the lines below.
const STARTUP_SUMMARY = processSlotKey('startup-summary')
// Registered by the application at start-up (lib/gate/body-limit.ts): the byte limit of a request's body.
const BODY_LIMIT = processSlotKey('body-limit')
// Registered by the application when OpenTelemetry is on (lib/startup.ts): runs a request in its server span.
const TELEMETRY_SERVE = processSlotKey('telemetry-serve')

// Next builds its internal request URLs from `hostname` and spells every loopback address as
// localhost; a different spelling (127.0.0.1) turns proxy.ts rewrites into HTTP round trips to
// ourselves. The listening address below is unaffected.
const app = next({ dev: false, dir: import.meta.dirname, hostname: 'localhost', port })
const handle = app.getRequestHandler()
await app.prepare()
// The application's start-up (instrumentation.ts) registers its summary; wait briefly for it.
for (let i = 0; i < 200 && !globalThis[STARTUP_SUMMARY]; i++) await sleep(25)

const ownHosts = ownAuthorities({ hostname, port, publicBaseUrl: process.env.PUBLIC_BASE_URL, queryAppHost: process.env.QUERY_APP_HOST })
const server = http.createServer((req, res) => {
  const target = originFormTarget(req, ownHosts)
  if (target === null) return answerForeignTarget(req.socket)
  req.url = target
  req.headers[CONNECTION_IP_HEADER] = req.socket.remoteAddress ?? ''
  req.headers[RELAYED_HEADER] = RELAY_HEADERS.some((h) => h in req.headers) ? '1' : '0'
  const limit = globalThis[BODY_LIMIT]?.(req.method, req.url, req.headers)
  if (limit !== undefined) capRequestBody(req, limit)
  const serveTraced = globalThis[TELEMETRY_SERVE]
  if (serveTraced) serveTraced(req, res, () => handle(req, res))
  else handle(req, res)
})
server.keepAliveTimeout = 65_000
server.on('clientError', answerClientError)
drainOnSignals(server)
server.listen(port, hostname, () => {
  localOperator.listening = server.address()?.address
  // The key cookie's name and the key link's host check use it (lib/access/local-operator.ts).
  localOperator.port = server.address()?.port
  console.log(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: `listening on http://${hostname}:${port}` }))
  console.log(startupLines(globalThis[STARTUP_SUMMARY]?.()))
})

/** What the person at the machine reads: where each surface is, and what the server runs on. */
function startupLines(summary) {
  const base = printedOrigin
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(hostname) || hostname.startsWith('127.')
  const local = loopback && summary?.access === 'local'
  const queryNote =
    summary?.access === 'verify'
      ? 'behind the access policy'
      : summary?.access === 'unconfigured'
        ? 'no access policy: every request answers 503 until it is configured, docs/query.md “Access policy”'
        : 'local operator off: the server listens on a public address'
  const lines = [
    '',
    `Utility API on ${base}${wildcard ? ` (listening on ${hostname}: every interface)` : ''}`,
    `  landing   ${base}/`,
    `  docs      ${base}/docs`,
    `  OpenAPI   ${base}/openapi.json`,
    `  MCP       ${base}/api/mcp (POST, Streamable HTTP; the landing page shows a client configuration)`,
    local
      ? `  query     ${base}/query?key=${localOperator.key}  (open this link in a browser on this machine; the key changes at every start)`
      : `  query     ${base}/query (${queryNote})`,
  ]
  if (summary) {
    lines.push('', 'Running on:')
    lines.push(`  database     ${summary.database}`)
    lines.push(`  rate limits  ${summary.rateLimit}`)
    if (summary.requestLog) lines.push(`  request log  ${summary.requestLog}`)
    lines.push(
      `  secrets      ${summary.secrets.length ? summary.secrets.join(', ') : 'none set (internal operations, Logpush ingest and the access policy are off)'}`,
    )
  }
  lines.push('')
  lines.push(
    loopback
      ? 'Only this machine can connect. To listen publicly: HOST=0.0.0.0 npm start (the local operator is then off: configure the access policy, docs/query.md “Access policy”).'
      : 'Listening publicly: the query application needs the access policy (docs/query.md “Access policy”); the local operator is off.',
  )
  return lines.join('\n') + '\n'
}

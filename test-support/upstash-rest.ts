import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createHash, randomBytes } from 'node:crypto'
import IORedis, { ReplyError } from 'ioredis'

// Upstash's REST API on loopback over a real Redis, as @upstash/redis speaks it
// (node_modules/@upstash/redis, pkg/http.ts): every call is a POST with a JSON array body and
// `Authorization: Bearer <token>` (401 otherwise).
//   POST /            one command, ["SET","k","v"]   → {"result": …}, or {"error": "…"} with 400
//   POST /pipeline    [["SET",…],["GET",…]]          → [{"result": …} | {"error": "…"}, …], 200
//   POST /multi-exec  the same, inside MULTI … EXEC
// With `Upstash-Encoding: base64` (the client's default) every bulk string of a result is base64,
// in nested arrays too; integers and nulls stay as they are, and the status reply OK stays "OK".
// The client never uses the path form (/get/key) outside streaming SUBSCRIBE, so neither does this.
//
// Upstash accepts the `#!lua flags=allow-key-locking` shebang @upstash/ratelimit puts on its
// scripts and vanilla Redis rejects: the flag is dropped before Redis sees a script, and EVALSHA of
// the flagged script's hash (the hash the client knows) runs the stripped one once it was loaded.
// Until then Redis answers NOSCRIPT, as Upstash would, and the client falls back to EVAL.

interface UpstashRestOptions {
  /** The Redis to forward to, with its database: redis://127.0.0.1:6379/9. */
  redisUrl: string
  /** A fixed port (to start it again where the app expects it); a free one by default. */
  port?: number
  token?: string
}

export interface UpstashRest {
  url: string
  token: string
  port: number
  /** Commands forwarded so far, by lower-case name: answered, and answered with an error. */
  counts(): { ok: Record<string, number>; failed: Record<string, number> }
  /** Stops answering: requests are accepted and held, never answered (the store hangs). */
  hang(): void
  /** Answers again; the connections held meanwhile are dropped, as a restarted store's would be. */
  resume(): void
  /** Closes the listener and every open connection (the store is gone for the app), then Redis. */
  stop(): Promise<void>
}

const FLAGS = /^#!lua flags=allow-key-locking\n/
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex')

type Reply = Buffer | number | null | Reply[]
type Answer = { result: unknown } | { error: string }

/** A reply in the client's encoding: base64 bulk strings, or plain text when it did not ask. */
function encode(reply: Reply, base64: boolean): unknown {
  if (Array.isArray(reply)) return reply.map((r) => encode(r, base64))
  if (!Buffer.isBuffer(reply)) return reply
  const text = reply.toString('utf8')
  return base64 && text !== 'OK' ? reply.toString('base64') : text
}

export async function startUpstashRest({ redisUrl, port = 0, token = randomBytes(16).toString('hex') }: UpstashRestOptions): Promise<UpstashRest> {
  // RESP2, the replies Upstash gives (no maps, doubles as strings).
  const redis = new IORedis(redisUrl, { protocol: 2, maxRetriesPerRequest: 1 })
  const ok: Record<string, number> = {}
  const failed: Record<string, number> = {}
  const strippedSha = new Map<string, string>()
  let hanging = false
  const held = new Set<IncomingMessage>()

  /**
   * The command as Redis takes it: arguments as strings, the Upstash-only script flag dropped, the
   * name in upper case so that ioredis applies none of its reply transformers (it would turn
   * HGETALL's list into an object): the client gets Redis's own reply.
   */
  function toRedis(command: unknown[]): [string, string[]] {
    const [name, ...rest] = command.map((a) => (typeof a === 'string' ? a : typeof a === 'number' || typeof a === 'boolean' ? String(a) : JSON.stringify(a)))
    const lower = name.toLowerCase()
    const scriptAt = lower === 'eval' || lower === 'eval_ro' ? 0 : lower === 'script' && rest[0]?.toLowerCase() === 'load' ? 1 : -1
    if (scriptAt >= 0 && FLAGS.test(rest[scriptAt])) {
      const stripped = rest[scriptAt].replace(FLAGS, '')
      strippedSha.set(sha1(rest[scriptAt]), sha1(stripped))
      rest[scriptAt] = stripped
    }
    if ((lower === 'evalsha' || lower === 'evalsha_ro') && strippedSha.has(rest[0])) rest[0] = strippedSha.get(rest[0])!
    return [name.toUpperCase(), rest]
  }

  const tally = (name: string, error: unknown) => {
    const into = error ? failed : ok
    const key = name.toLowerCase()
    into[key] = (into[key] ?? 0) + 1
  }
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

  /** Runs one command; a rejection is Redis's error (a ReplyError) or the connection's. */
  async function run(command: unknown[], base64: boolean): Promise<unknown> {
    const [name, args] = toRedis(command)
    try {
      const reply = (await redis.callBuffer(name, ...args)) as Reply
      tally(name, null)
      // SCRIPT LOAD answers with the hash the client computed: that of the script it sent.
      return name === 'SCRIPT' && args[0].toLowerCase() === 'load' ? encode(Buffer.from(sha1(String(command[2]))), base64) : encode(reply, base64)
    } catch (error) {
      tally(name, error)
      throw error
    }
  }

  async function transaction(commands: unknown[][], base64: boolean): Promise<Answer[]> {
    const tx = redis.multi()
    const names = commands.map((c) => {
      const [name, args] = toRedis(c)
      tx.callBuffer(name, ...args)
      return name
    })
    const results = (await tx.exec()) ?? []
    return results.map(([error, reply], i) => {
      tally(names[i], error)
      return error ? { error: error.message } : { result: encode(reply as Reply, base64) }
    })
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' })
    if (req.method !== 'POST') return send(405, { error: 'Method not allowed' })
    if (hanging) return void held.add(req)
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return send(400, { error: 'ERR failed to parse command' })
    }
    const base64 = req.headers['upstash-encoding'] === 'base64'
    const isCommand = (c: unknown): c is unknown[] => Array.isArray(c) && typeof c[0] === 'string'
    const path = new URL(req.url ?? '/', 'http://x').pathname
    try {
      if (path === '/') {
        if (!isCommand(body)) return send(400, { error: 'ERR failed to parse command' })
        return send(200, { result: await run(body, base64) })
      }
      if (path === '/pipeline' || path === '/multi-exec') {
        if (!Array.isArray(body) || body.length === 0 || !body.every(isCommand)) return send(400, { error: 'ERR failed to parse pipeline request' })
        const answers =
          path === '/pipeline'
            ? await Promise.all(
                body.map((c) =>
                  run(c, base64).then(
                    (result): Answer => ({ result }),
                    (error: unknown): Answer => ({ error: message(error) }),
                  ),
                ),
              )
            : await transaction(body, base64)
        return send(200, answers)
      }
      return send(404, { error: `ERR unknown path ${path}` })
    } catch (error) {
      // A Redis error reply is the caller's (400, as Upstash answers it); Redis unreachable is ours.
      send(error instanceof ReplyError ? 400 : 502, { error: message(error) })
    }
  }

  const server = createServer((req, res) => void handle(req, res))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const bound = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${bound}`,
    token,
    port: bound,
    counts: () => ({ ok: { ...ok }, failed: { ...failed } }),
    hang: () => void (hanging = true),
    resume: () => {
      hanging = false
      for (const req of held) req.socket.destroy()
      held.clear()
    },
    stop: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      redis.disconnect()
    },
  }
}

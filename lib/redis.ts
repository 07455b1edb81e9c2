import 'server-only'
import { createHash } from 'node:crypto'
import { Redis as UpstashRedis, type Requester } from '@upstash/redis'
import IORedis from 'ioredis'
import { createBreaker, type Breaker } from '@/lib/circuit-breaker'
import { config, rateLimitStoreKind, type Config } from '@/lib/config'
import { withTimeout } from '@/lib/timeout'
import { processSlot } from '@/lib/process-slot'

// One @upstash/redis client for the process: Upstash REST when configured, otherwise a plain
// Redis at REDIS_URL through an ioredis-backed requester, so the real SDK (and the rate limiter's
// Lua scripts) run against any Redis. Null when no store is configured.

// @upstash/ratelimit ≥ 2.1 prefixes its scripts with an Upstash-only shebang flag that vanilla
// Redis rejects ("Unexpected flag in script shebang").
const stripUpstashFlags = (script: unknown) => (typeof script === 'string' ? script.replace(/^#!lua flags=allow-key-locking\n/, '') : script)
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex')

function ioredisRequester(native: IORedis): Requester {
  // The SDK calls EVALSHA with the hash of the flagged script, which Redis never stored; remember
  // which stripped script each hash stands for so later calls are one round trip, not three.
  const strippedSha = new Map<string, string>()
  const toArgs = (command: unknown[]): [string, ...unknown[]] => {
    const [name, ...args] = command as [string, ...unknown[]]
    const lower = name.toLowerCase()
    if ((lower === 'eval' || lower === 'eval_ro') && typeof args[0] === 'string') {
      const stripped = stripUpstashFlags(args[0]) as string
      if (stripped !== args[0]) strippedSha.set(sha1(args[0]), sha1(stripped))
      args[0] = stripped
    }
    if ((lower === 'evalsha' || lower === 'evalsha_ro') && strippedSha.has(String(args[0]))) args[0] = strippedSha.get(String(args[0]))
    if (lower === 'script' && String(args[0]).toLowerCase() === 'load') args[1] = stripUpstashFlags(args[1])
    return [name, ...args]
  }
  const run = async (command: unknown[]) => {
    try {
      const [name, ...args] = toArgs(command)
      return { result: await native.call(name, ...(args as (string | number)[])) }
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) }
    }
  }
  return {
    request: async <T>({ path = [], body }: { path?: string[]; body?: unknown }) => {
      if (path[0] === 'pipeline') return (await Promise.all((body as unknown[][]).map(run))) as never
      if (path[0] === 'multi-exec') {
        const results = await native.multi((body as unknown[][]).map((c) => toArgs(c) as string[])).exec()
        return (results ?? []).map(([error, result]) => (error ? { error: error.message } : { result })) as never
      }
      return (await run(body as unknown[])) as { result?: T; error?: string }
    },
  }
}

export interface RedisHandle {
  kind: 'upstash' | 'redis'
  client: UpstashRedis
  /** Round trip to the store, rejecting after `timeoutMs`. */
  ping(timeoutMs: number): Promise<void>
  close(): Promise<void>
}

/** How long the breaker's background probe waits for the store. */
const PROBE_TIMEOUT_MS = 1000

export function createRedis(c: Config): RedisHandle | null {
  const kind = rateLimitStoreKind(c)
  if (kind === 'memory') return null
  if (kind === 'upstash') {
    const client = new UpstashRedis({
      url: c.UPSTASH_REDIS_REST_URL ?? c.KV_REST_API_URL!,
      token: c.UPSTASH_REDIS_REST_TOKEN ?? c.KV_REST_API_TOKEN!,
      enableTelemetry: false,
      // One attempt per command. `retry: false` still makes two (the SDK loops attempts + 1
      // times), so a request abandoned at its deadline was sent again once its socket failed and
      // counted late, after the client had been answered from the in-memory count.
      retry: { retries: 0 },
    })
    return {
      kind,
      client,
      ping: (timeoutMs) =>
        withTimeout(
          client.ping().then(() => undefined),
          timeoutMs,
        ),
      close: async () => {},
    }
  }
  // No offline queue: while Redis is down commands fail at once, so the limiter can fail open fast.
  const native = new IORedis(c.REDIS_URL!, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  })
  native.on('error', () => {}) // reported through failed commands and /api/health
  return {
    kind,
    client: new UpstashRedis(ioredisRequester(native)),
    ping: (timeoutMs) =>
      withTimeout(
        native.ping().then(() => undefined),
        timeoutMs,
      ),
    close: async () => {
      native.disconnect()
    },
  }
}

const redisSlot = processSlot<RedisHandle | null>('redis')
const breakerSlot = processSlot<Breaker>('redis-breaker')

/** The process-wide store, shared by the bundles. */
export function getRedis(): RedisHandle | null {
  return redisSlot.getOrCreate(() => createRedis(config))
}

/**
 * The store's circuit breaker, shared by its users (the rate limiter, the upstream cache): once the
 * store keeps failing or timing out, nobody waits on it until a background ping answers again.
 */
export function getRedisBreaker(): Breaker | null {
  const redis = getRedis()
  if (!redis) return null
  return breakerSlot.getOrCreate(() => createBreaker({ name: `${redis.kind} store`, probe: () => redis.ping(PROBE_TIMEOUT_MS) }))
}

import 'server-only'
import { log } from '@/lib/log'
import { getRedis, getRedisBreaker } from '@/lib/redis'
import { withTimeout } from '@/lib/timeout'
import { processSlot } from '@/lib/process-slot'

// TTL cache for upstream answers, in Redis when a store is configured (shared by instances) and in
// memory otherwise, with single-flight: concurrent identical loads share one upstream call. A
// failing store is treated as a miss; caching never fails a request. Store calls go through the
// store's circuit breaker: while it is open (the store down or hanging) the memory cache serves.

interface Entry {
  value: unknown
  /** Epoch ms after which the value is stale. */
  freshUntil: number
}

const STORE_TIMEOUT_MS = 200
const MEMORY_MAX_ENTRIES = 5000

interface State {
  memory: Map<string, Entry & { expiresAt: number }>
  inflight: Map<string, Promise<unknown>>
}
const state = processSlot<State>('upstream-cache').getOrCreate(() => ({
  memory: new Map(),
  inflight: new Map(),
}))

function readMemory(key: string): Entry | undefined {
  const hit = state.memory.get(key)
  if (!hit) return undefined
  if (hit.expiresAt < Date.now()) {
    state.memory.delete(key)
    return undefined
  }
  // Map order doubles as recency for eviction.
  state.memory.delete(key)
  state.memory.set(key, hit)
  return hit
}

function writeMemory(key: string, entry: Entry, keepMs: number) {
  state.memory.set(key, { ...entry, expiresAt: Date.now() + keepMs })
  while (state.memory.size > MEMORY_MAX_ENTRIES) state.memory.delete(state.memory.keys().next().value!)
}

async function read(key: string): Promise<Entry | undefined> {
  const redis = getRedis()
  const breaker = getRedisBreaker()
  if (!redis || !breaker) return readMemory(key)
  return breaker.run(
    async () => (await withTimeout(redis.client.get<Entry>(`cache:${key}`), STORE_TIMEOUT_MS)) ?? undefined,
    (reason) => {
      if (!breaker.isOpen()) log.warn('cache read failed', { key, error: reason.slice(0, 200) })
      return readMemory(key)
    },
  )
}

async function write(key: string, entry: Entry, keepMs: number) {
  const redis = getRedis()
  const breaker = getRedisBreaker()
  if (!redis || !breaker) return writeMemory(key, entry, keepMs)
  await breaker.run(
    async () => void (await withTimeout(redis.client.set(`cache:${key}`, entry, { px: Math.max(1, keepMs) }), STORE_TIMEOUT_MS)),
    (reason) => {
      if (!breaker.isOpen()) log.warn('cache write failed', { key, error: reason.slice(0, 200) })
      writeMemory(key, entry, keepMs)
    },
  )
}

export interface CacheOptions {
  /** How long an answer is served without asking the upstream again. */
  ttlS: number
  /** How long past the TTL a last-good answer is kept, served only when a reload fails. */
  staleS?: number
}

/** Share one in-flight promise per key. */
export function singleFlight<T>(key: string, load: () => Promise<T>): Promise<T> {
  const running = state.inflight.get(key) as Promise<T> | undefined
  if (running) return running
  const p = load().finally(() => state.inflight.delete(key))
  state.inflight.set(key, p)
  return p
}

/**
 * The cached value for `key`, or `load()`'s result (stored for `ttlS`). When a reload fails and a
 * stale copy is still kept (`staleS`), the stale copy is returned instead of the error.
 */
export async function cached<T>(key: string, options: CacheOptions, load: () => Promise<T>): Promise<T> {
  const hit = await read(key)
  if (hit && hit.freshUntil > Date.now()) return hit.value as T
  return singleFlight(key, async () => {
    try {
      const value = await load()
      if (options.ttlS > 0) await write(key, { value, freshUntil: Date.now() + options.ttlS * 1000 }, (options.ttlS + (options.staleS ?? 0)) * 1000)
      return value
    } catch (error) {
      if (hit && options.staleS) {
        log.warn('serving stale cache after upstream failure', { key, error: error instanceof Error ? error.message : String(error) })
        return hit.value as T
      }
      throw error
    }
  })
}

/**
 * Batch form of `cached` for upstreams with a batch endpoint: fresh entries come from the cache,
 * the rest are loaded with one `loadMissing` call and stored one by one. Ids the loader leaves out
 * are absent from the result; a loader failure propagates (the caller decides per item).
 */
export async function cachedMany<T>(
  ids: readonly string[],
  keyOf: (id: string) => string,
  options: CacheOptions,
  loadMissing: (ids: string[]) => Promise<Map<string, T>>,
): Promise<Map<string, T>> {
  const unique = [...new Set(ids)]
  const hits = await Promise.all(unique.map((id) => read(keyOf(id))))
  const out = new Map<string, T>()
  const missing: string[] = []
  unique.forEach((id, i) => {
    const hit = hits[i]
    if (hit && hit.freshUntil > Date.now()) out.set(id, hit.value as T)
    else missing.push(id)
  })
  if (missing.length === 0) return out
  const loaded = await singleFlight(`many:${missing.map(keyOf).join('|')}`, () => loadMissing(missing))
  const keepMs = (options.ttlS + (options.staleS ?? 0)) * 1000
  await Promise.all(
    [...loaded].map(async ([id, value]) => {
      out.set(id, value)
      if (options.ttlS > 0) await write(keyOf(id), { value, freshUntil: Date.now() + options.ttlS * 1000 }, keepMs)
    }),
  )
  return out
}

/** Test and benchmark hook: forget in-memory entries. */
export function clearMemoryCache() {
  state.memory.clear()
}

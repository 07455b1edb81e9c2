import 'server-only'
import { AsyncLocalStorage } from 'node:async_hooks'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'

// Query statements per identity: at most MAX_CONCURRENT_STATEMENTS of one operator's run at once
// (a dashboard's panels, charts and facets included); the others wait in a short queue, and past
// its length or wait a 429 with Retry-After answers. The pages and routes say whose statements
// these are (asQueryIdentity); statements outside one (the alerts job, scripts) are not limited.
// The count is per process: instances behind a load balancer each allow as many.

export const MAX_CONCURRENT_STATEMENTS = 4
/** Statements of one identity that may wait for a slot. */
const MAX_WAITING = 32
const RETRY_AFTER_S = 2

const identity = new AsyncLocalStorage<string>()

/** Runs `fn` with its query statements counted against `key` (lib/saved-views ownerOf). */
export function asQueryIdentity<T>(key: string, fn: () => Promise<T>): Promise<T> {
  return identity.run(key, fn)
}

/** The identity whose statements are running, if a page or route said so. */
export const currentQueryIdentity = (): string | undefined => identity.getStore()

interface Slots {
  active: number
  waiting: Array<() => void>
}
const slots = new Map<string, Slots>()

const busy = (why: string) =>
  new AppError(
    'rate_limited',
    `Too many queries at once for this operator (${why}; at most ${MAX_CONCURRENT_STATEMENTS} run at a time). Retry after ${RETRY_AFTER_S} seconds.`,
    { retryAfterSeconds: RETRY_AFTER_S },
  )

/**
 * Runs `fn` once `key` has a free slot: at once when fewer than MAX_CONCURRENT_STATEMENTS run, else
 * after waiting up to `waitMs` (twice the statement timeout unless given) for one to end.
 */
export async function withStatementSlot<T>(key: string, fn: () => Promise<T>, waitMs = 2 * config.QUERY_STATEMENT_TIMEOUT_MS): Promise<T> {
  let state = slots.get(key)
  if (!state) slots.set(key, (state = { active: 0, waiting: [] }))
  if (state.active < MAX_CONCURRENT_STATEMENTS) state.active++
  else {
    if (state.waiting.length >= MAX_WAITING) throw busy(`${MAX_WAITING} more are already waiting`)
    const queue = state.waiting
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(turn), 1)
        reject(busy(`none ended within ${Math.round(waitMs / 1000)} s`))
      }, waitMs)
      queue.push(turn)
    })
    // The slot was handed over by the statement that ended: `active` is unchanged.
  }
  try {
    return await fn()
  } finally {
    const next = state.waiting.shift()
    if (next) next()
    else if (--state.active === 0) slots.delete(key)
  }
}

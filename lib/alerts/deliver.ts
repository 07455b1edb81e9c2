import 'server-only'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import type { AlertRow } from '@/lib/alerts/channels/channel'
import { alertChannel } from '@/lib/alerts/channels'
import { defaultDestinations, destinationLabel, type Target } from '@/lib/alerts/destinations'
import { config } from '@/lib/config'
import type { Db } from '@/lib/db/client'
import { parseTimestamp, rowsOf } from '@/lib/db/rows'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { UpstreamStatus, upstreamFetch } from '@/lib/upstream/http'

// Webhook delivery of the alerts dataset's pending rows, through the one upstream HTTP module, each
// body shaped by the alert channel ALERT_WEBHOOK_FORMAT chooses (lib/alerts/channels).
// A row is `pending` from the moment it is recorded until the receiver answers 2xx; each attempt
// (when, HTTP status or error, how long) is appended to its `attempt_log`. Within one run a
// notification gets ALERT_DELIVERY_ATTEMPTS attempts with exponential backoff, all inside
// ALERT_DELIVERY_BUDGET_MS; a receiver that stays down keeps the rest pending, oldest first, for
// the next run: nothing is dropped. Only the alerts job delivers (under its lock), so a
// notification is never sent twice by two runs at once.

export const WEBHOOK_UPSTREAM = 'alert webhook'

export interface Attempt {
  /** The destination's label (lib/alerts/destinations.ts), on rows written since alerts have several. */
  to?: string
  at: string
  ok: boolean
  status: number | null
  error: string | null
  ms: number
}

export interface DeliveryOptions {
  /** The default destination (ALERT_WEBHOOK_URL unless given). */
  url?: string
  /** The channel's name, or auto (ALERT_WEBHOOK_FORMAT by default). */
  format?: string
  attempts?: number
  budgetMs?: number
  /** Backoff before the second attempt; doubled for each next one. */
  backoffMs?: number
  /** Most rows one run tries. */
  limit?: number
  now?: () => number
}

export interface DeliveryResult {
  delivered: number
  failed: number
  /** Still pending after this run (including any not tried for lack of time). */
  pending: number
  attempts: number
}

type Row = Record<string, unknown>
const message = (error: unknown) =>
  error instanceof AppError && error.details?.detail
    ? `${error.message} (${String(error.details.detail).slice(0, 200)})`
    : error instanceof Error
      ? error.message
      : String(error)
const iso = (v: unknown) => parseTimestamp(v).toISOString()
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v))

/** A receiver answering this is down or busy: the rest of the queue waits for the next run. */
const receiverDown = (a: Attempt) => !a.ok && (a.status === null || a.status >= 500 || a.status === 429 || a.status === 408)

// Demonstration rows (npm run db:seed, the embedded database's first start) never leave the database.
const WAITING = sql`"delivery" = 'pending' AND NOT "demo"`

/**
 * POSTs one notification's body to one webhook: up to `maxAttempts` attempts with exponential
 * backoff from `backoffMs`, each within what is left before `deadline`, stopping at the first 2xx
 * or at an answer that asking again will not change (a 4xx other than 408/429). Every attempt is
 * returned, in order; the last says the outcome.
 */
export async function postNotification(
  url: string,
  body: string,
  { maxAttempts, backoffMs, deadline, now = Date.now }: { maxAttempts: number; backoffMs: number; deadline: number; now?: () => number },
): Promise<Attempt[]> {
  const attempts: Attempt[] = []
  for (let n = 0; n < maxAttempts; n++) {
    if (n > 0) {
      const wait = backoffMs * 2 ** (n - 1)
      if (deadline - now() < wait + 1000) break
      await sleep(wait)
    }
    const started = now()
    const timeoutMs = Math.max(500, Math.min(config.UPSTREAM_TIMEOUT_MS, deadline - started))
    try {
      const res = await upstreamFetch(WEBHOOK_UPSTREAM, url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        timeoutMs,
        retries: 0,
        maxBytes: 64 * 1024,
      })
      attempts.push({ at: new Date(started).toISOString(), ok: true, status: res.status, error: null, ms: now() - started })
      break
    } catch (error) {
      const status = error instanceof UpstreamStatus ? error.upstreamStatus : null
      attempts.push({ at: new Date(started).toISOString(), ok: false, status, error: message(error).slice(0, 500), ms: now() - started })
      // A 4xx other than 408/429 will not change by asking again within this run.
      if (!receiverDown(attempts.at(-1)!)) break
    }
  }
  return attempts
}

/**
 * `present`: the name a notification goes by, where it points (lib/alerts/job.ts presentAlert) and
 * where it goes (its view's destinations, else the default: lib/alerts/destinations.ts). A row is
 * delivered once every destination answered 2xx; each attempt names its destination (`to`, the
 * label, never the URL), and a later run sends only to those that have not taken it yet. A
 * destination that is down is skipped for the rest of the run, so its notifications stay in order
 * while the others go on.
 */
export async function deliverPending(
  db: Db,
  present: (row: Row) => { name: string; link: string | null; destinations?: Target[] },
  opts: DeliveryOptions = {},
): Promise<DeliveryResult> {
  const now = opts.now ?? Date.now
  const budgetMs = opts.budgetMs ?? config.ALERT_DELIVERY_BUDGET_MS
  const maxAttempts = opts.attempts ?? config.ALERT_DELIVERY_ATTEMPTS
  const backoffMs = opts.backoffMs ?? 500
  const deadline = now() + budgetMs
  const result: DeliveryResult = { delivered: 0, failed: 0, pending: 0, attempts: 0 }
  const defaults = defaultDestinations(opts.url, opts.format)
  const pending = rowsOf(
    await db.execute(
      sql`SELECT "id", "at", "at"::text AS "at_key", "kind", "event", "alert_key", "name", "dataset", "metric", "op", "threshold", "value", "window_minutes", "summary", "attempt_log" FROM "alerts" WHERE ${WAITING} ORDER BY "at", "id" LIMIT ${opts.limit ?? 100}`,
    ),
  )
  const down = new Set<string>()
  for (const r of pending) {
    if (deadline - now() < 1000) break
    const { name, link, destinations = defaults } = present(r)
    if (!destinations.length) continue
    const alert: AlertRow = {
      id: Number(r.id),
      at: iso(r.at),
      kind: String(r.kind),
      event: String(r.event),
      alertKey: String(r.alert_key),
      name,
      dataset: r.dataset === null ? null : String(r.dataset),
      metric: r.metric === null ? null : String(r.metric),
      op: r.op === null ? null : String(r.op),
      threshold: num(r.threshold),
      value: num(r.value),
      windowMinutes: num(r.window_minutes),
      summary: String(r.summary),
      link,
    }
    const log_ = (Array.isArray(r.attempt_log) ? r.attempt_log : []) as Attempt[]
    const taken = new Set(log_.filter((a) => a.ok && a.to).map((a) => a.to))
    const attempts: Attempt[] = []
    let tried = false
    for (const d of destinations) {
      const to = destinationLabel(d)
      if (taken.has(to) || down.has(to) || deadline - now() < 1000) continue
      tried = true
      const made = await postNotification(d.url, JSON.stringify(alertChannel(d.url, d.format).body(alert)), { maxAttempts, backoffMs, deadline, now })
      attempts.push(...made.map((a) => ({ ...a, to })))
      const last = made.at(-1)
      if (last?.ok) taken.add(to)
      else if (!last || receiverDown(last)) down.add(to)
    }
    if (!tried) continue
    result.attempts += attempts.length
    const ok = destinations.every((d) => taken.has(destinationLabel(d)))
    const lastFailure = attempts.filter((a) => !a.ok).at(-1)
    if (ok) result.delivered++
    else result.failed++
    await db.execute(sql`UPDATE "alerts" SET
      "attempts" = "attempts" + ${attempts.length},
      "attempt_log" = "attempt_log" || ${JSON.stringify(attempts)}::jsonb,
      "delivery" = ${ok ? 'delivered' : 'pending'},
      "delivered_at" = ${ok ? (attempts.at(-1)?.at ?? new Date(now()).toISOString()) : null}::timestamptz,
      "last_error" = ${ok ? null : (lastFailure?.error ?? (lastFailure ? `HTTP ${lastFailure.status}` : null))}
      WHERE "at" = ${String(r.at_key)}::timestamptz AND "id" = ${alert.id}`)
    if (!ok) log.warn('alert not delivered', { id: alert.id, key: alert.alertKey, attempts: attempts.length, error: lastFailure?.error })
  }
  // What still waits, beyond this run's batch too.
  const [waiting] = rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS "n" FROM "alerts" WHERE ${WAITING}`))
  result.pending = Number(waiting?.n ?? 0)
  return result
}

import 'server-only'
import { lt, sql } from 'drizzle-orm'
import {
  describeCondition,
  effectiveThreshold,
  formatValue,
  formatWindow,
  isMet,
  METRIC_LABELS,
  NEW_PATTERN_DAYS,
  type Condition,
} from '@/lib/saved-views/condition'
import { newPatterns } from '@/lib/query/patterns'
import { deliverPending, type DeliveryOptions, type DeliveryResult } from '@/lib/alerts/deliver'
import { alertDestinations, defaultDestinations } from '@/lib/alerts/destinations'
import { alertEvaluation } from '@/lib/saved-views/tables'
import { config } from '@/lib/config'
import type { Database, Db } from '@/lib/db/client'
import { DATASETS } from '@/lib/datasets/catalog'
import { AppError } from '@/lib/errors'
import { parseTimestamp, rowsOf } from '@/lib/db/rows'
import { write as writeAlerts } from '@/lib/datasets/alerts/store'
import type { alerts } from '@/lib/datasets/alerts/tables'
import { listConditions, type SavedView } from '@/lib/saved-views/views'
import { runQuery } from '@/lib/query/service'
import { parseViewState } from '@/lib/view/view-state'

// The alerts job: evaluates the condition of every saved view that has one over its window (the
// query engine, read-only, under the statement timeout), records each firing and resolution in the
// alerts dataset, and delivers what is pending to ALERT_WEBHOOK_URL (lib/alerts/deliver.ts). The
// domain-posture job records its changes here too (recordPostureChanges), and this job delivers them.
//
// State lives in the alerts rows themselves, per `alert_key`:
// - the alert's state is its latest row's event (fired → firing; resolved, or no row → ok);
// - what the receiver was told is its latest row that was sent (pending or delivered);
// - the cooldown runs from its latest sent `fired` (or posture `changed`).
// A change of state is always recorded. It is sent when the receiver was told otherwise, except a
// firing within ALERT_COOLDOWN_S of the previous sent firing, which is recorded `suppressed`; if
// the alert is still firing once the cooldown is over, one more `fired` is sent then. So a
// flapping condition sends at most one firing and one resolution per cooldown, and the receiver
// always ends up told the current state. A resolution is never held back.

/**
 * Time one run may spend measuring conditions (each measurement is also bounded by the statement
 * timeout); conditions left over are named in the run's error and measured on the next run. With
 * the delivery budget it keeps a run inside the cron route's 300 s.
 */
export const EVALUATION_BUDGET_MS = 120_000

export type AlertState = 'firing' | 'ok'
export type Delivery = 'pending' | 'suppressed' | 'disabled'

interface Sent {
  event: string
  at: Date
}

export interface KeyHistory {
  /** The latest row's event. */
  last: string | null
  /** The latest row sent (pending or delivered). */
  told: Sent | null
  /** The latest sent firing (fired or changed). */
  lastFiring: Sent | null
}

/**
 * What to record for one condition at one evaluation: nothing, or an event and its delivery.
 * Pure, for the tests: `webhook` false records changes as `disabled` and never catches up.
 */
export function decide(
  firing: boolean,
  history: KeyHistory,
  now: Date,
  opts: { cooldownS: number; webhook: boolean },
): { event: 'fired' | 'resolved'; delivery: Delivery } | null {
  const current: AlertState = firing ? 'firing' : 'ok'
  const previous: AlertState = history.last === 'fired' ? 'firing' : 'ok'
  const told: AlertState = history.told?.event === 'fired' ? 'firing' : 'ok'
  const cooled = !history.lastFiring || now.getTime() - history.lastFiring.at.getTime() >= opts.cooldownS * 1000
  const send = current !== told && (current === 'ok' || cooled)
  const event = firing ? 'fired' : 'resolved'
  if (!opts.webhook) return current !== previous ? { event, delivery: 'disabled' } : null
  if (current !== previous) return { event, delivery: send ? 'pending' : 'suppressed' }
  // Unchanged, but the receiver was told otherwise (a firing held back by the cooldown): catch up.
  return send ? { event, delivery: 'pending' } : null
}

type Row = Record<string, unknown>
const SENT = sql`"delivery" IN ('pending', 'delivered')`

/** The rows that say an alert's state (index alerts_key_time_idx: each read is one index probe per day partition). */
export async function keyHistory(db: Db, key: string): Promise<KeyHistory> {
  const latest = (where: ReturnType<typeof sql>) =>
    db.execute(sql`SELECT "event", "at" FROM "alerts" WHERE "alert_key" = ${key}${where} ORDER BY "at" DESC, "id" DESC LIMIT 1`).then((r) => rowsOf(r)[0])
  const [last, told, lastFiring] = await Promise.all([latest(sql``), latest(sql` AND ${SENT}`), latest(sql` AND ${SENT} AND "event" IN ('fired', 'changed')`)])
  const sent = (r: Row | undefined): Sent | null => (r ? { event: String(r.event), at: parseTimestamp(r.at) } : null)
  return { last: last ? String(last.event) : null, told: sent(told), lastFiring: sent(lastFiring) }
}

export interface Measurement {
  value: number
  /** Whether a count behind the value is the planner's estimate (more rows than QUERY_EXACT_COUNT_LIMIT). */
  estimated: boolean
  /** A departure's baseline: the median of the same window on each of the condition's earlier days. */
  baseline?: number
  /** New patterns: the templates that were new in the window. */
  templates?: string[]
}

const DAY_MS = 86_400_000

/** The median of a few numbers. */
function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/** The window ending at `end`, and for a departure its baseline: the median over the same window of each earlier day. */
async function measureWithBaseline(database: Database, view: Pick<SavedView, 'view'>, condition: Condition, end: Date): Promise<Measurement> {
  const m = await measure(database, view, condition, end)
  if (condition.compareDays === undefined || condition.metric === 'new_patterns') return m
  const earlier: Measurement[] = []
  for (let d = 1; d <= condition.compareDays; d++) earlier.push(await measure(database, view, condition, new Date(end.getTime() - d * DAY_MS)))
  return { ...m, baseline: median(earlier.map((e) => e.value)), estimated: m.estimated || earlier.some((e) => e.estimated) }
}

/** The condition's metric over [end − window, end) of the view's dataset and filter. */
export async function measure(database: Database, view: Pick<SavedView, 'view'>, condition: Condition, end: Date): Promise<Measurement> {
  const now = end
  const { state } = parseViewState(Object.fromEntries(new URLSearchParams(view.view)))
  const dataset = DATASETS[state.dataset]
  const range = {
    dataset: state.dataset,
    dateFrom: new Date(now.getTime() - condition.windowMinutes * 60_000).toISOString(),
    dateTo: now.toISOString(),
    limit: 1,
  }
  const opts = { database, timeoutMs: config.QUERY_STATEMENT_TIMEOUT_MS }
  if (condition.metric === 'new_patterns') {
    const from = new Date(range.dateFrom)
    const since = new Date(from.getTime() - (condition.compareDays ?? NEW_PATTERN_DAYS) * DAY_MS)
    const { templates } = await newPatterns(
      { dataset: state.dataset, column: condition.patternColumn!, filter: state.filter || undefined, from, to: now, since },
      opts,
    )
    return { value: templates.length, estimated: false, templates }
  }
  const total = await runQuery({ ...range, ...(state.filter ? { filter: state.filter } : {}) }, opts)
  if (condition.metric === 'count') return { value: total.count, estimated: !total.countExact }
  if (!dataset.errorFilter) throw new Error(`${dataset.label} has no error rate`)
  const errorFilter = state.filter ? `(${state.filter}) AND (${dataset.errorFilter})` : dataset.errorFilter
  const errors = await runQuery({ ...range, filter: errorFilter }, opts)
  return { value: total.count === 0 ? 0 : errors.count / total.count, estimated: !total.countExact || !errors.countExact }
}

/**
 * Whether a condition with `consecutiveWindows` N is firing after this evaluation, from whether it
 * held in each window, newest first (back to back, each `windowMinutes` long, the newest ending
 * now). Not firing: it fires when it held in each of the last N windows. Firing: it stays firing
 * while it holds in the newest window and resolves at the first window where it does not (as
 * Grafana's pending period delays a firing, never a resolution). Pure, for the tests; `held` is
 * how many windows in a row, newest first, it held in.
 */
export function judgeWindows(met: boolean[], consecutiveWindows: number, wasFiring: boolean): { firing: boolean; held: number } {
  const firstMiss = met.indexOf(false)
  const held = firstMiss === -1 ? met.length : firstMiss
  return { firing: wasFiring ? held >= 1 : held >= consecutiveWindows, held }
}

export interface WindowsMeasurement {
  /** The newest window's measurement. */
  newest: Measurement
  firing: boolean
  held: number
}

/**
 * Measures the newest window and, when it could fire, the ones before it, newest first, stopping
 * at the first window where the condition did not hold (so a quiet condition costs one window).
 */
export async function measureWindows(
  database: Database,
  view: Pick<SavedView, 'view'>,
  condition: Condition,
  now: Date,
  wasFiring: boolean,
): Promise<WindowsMeasurement> {
  const windowMs = condition.windowMinutes * 60_000
  const needed = wasFiring ? 1 : condition.consecutiveWindows
  const met: boolean[] = []
  let newest: Measurement | null = null
  for (let k = 0; k < needed; k++) {
    const m = await measureWithBaseline(database, view, condition, new Date(now.getTime() - k * windowMs))
    newest ??= m
    met.push(isMet(condition, m.value, m.baseline))
    if (!met[k]) break
  }
  return { newest: newest!, ...judgeWindows(met, condition.consecutiveWindows, wasFiring) }
}

const measureError = (error: unknown) =>
  error instanceof AppError && error.code === 'invalid_input'
    ? 'its filter was refused (its owner sees why on the view’s page)'
    : error instanceof Error
      ? error.message
      : String(error)

/**
 * The notification's text, as the alerts dataset keeps it: the view by its id and its dataset,
 * never its name or filter (saved views are private; every query user reads this dataset).
 */
export function conditionSummary(view: Pick<SavedView, 'id' | 'view'>, condition: Condition, event: 'fired' | 'resolved', m: Measurement): string {
  const { state } = parseViewState(Object.fromEntries(new URLSearchParams(view.view)))
  const value = `${m.estimated ? 'about ' : ''}${formatValue(condition.metric, m.value)}`
  const metric = METRIC_LABELS[condition.metric].toLowerCase()
  const subject = `Saved view ${view.id}`
  const over =
    condition.consecutiveWindows > 1 && event === 'fired'
      ? `over each of the last ${condition.consecutiveWindows} windows of ${formatWindow(condition.windowMinutes)}`
      : `over the last ${formatWindow(condition.windowMinutes)}`
  const limit =
    condition.compareDays === undefined
      ? formatValue(condition.metric, condition.threshold)
      : `${formatValue(condition.metric, effectiveThreshold(condition, m.baseline))} (${Math.round(condition.threshold * 100)} % ${condition.op} the usual ${formatValue(condition.metric, m.baseline ?? 0)} of the same window on ${condition.compareDays === 1 ? 'the day before' : `the last ${condition.compareDays} days`})`
  const tail = `${condition.op} ${limit} ${over} (${DATASETS[state.dataset].label}).`
  if (condition.metric === 'new_patterns') {
    const shown = (m.templates ?? []).slice(0, 5).join(', ')
    const seen = `${condition.patternColumn} over the last ${formatWindow(condition.windowMinutes)}, not seen in the ${condition.compareDays ?? NEW_PATTERN_DAYS} days before (${DATASETS[state.dataset].label})`
    if (event === 'fired') return `${subject} is firing: ${value} of ${seen}${shown ? `: ${shown}${(m.templates?.length ?? 0) > 5 ? ', …' : ''}` : ''}.`
    return `${subject} resolved: ${value} of ${seen}.`
  }
  if (event === 'fired') return `${subject} is firing: ${metric} ${value} is ${tail}`
  return `${subject} resolved: ${metric} ${value} is no longer ${tail}`
}

/**
 * What a notification says to the webhook (ALERT_WEBHOOK_URL, the channel the view's owner set the
 * alert for): the view's name, resolved from its id here rather than copied into the dataset, and
 * where it points: the saved view's page, or the domain's posture changes, on this service's
 * origin (PUBLIC_BASE_URL's, whatever path it carries) with the window that fired pinned as a
 * custom range, so the page shows what the alert saw however late it is opened.
 */
export function presentAlert(
  base: string,
  row: { kind: string; name: string | null; alertKey: string; at: Date; windowMinutes: number | null },
  views: ReadonlyMap<string, Pick<SavedView, 'id' | 'name' | 'page' | 'view'>>,
): { name: string; link: string | null } {
  const origin = new URL(base).origin
  const pinned = (params: URLSearchParams, fromMs: number, toMs: number) => {
    params.delete('range')
    params.set('from', new Date(fromMs).toISOString())
    params.set('to', new Date(toMs).toISOString())
    return params
  }
  const at = row.at.getTime()
  if (row.kind === 'posture') {
    const domain = row.name ?? ''
    // The week of checks up to the change, as the domain's history reads best.
    const params = new URLSearchParams({ dataset: 'domain_checks', filter: `domain = '${domain.replaceAll("'", "''")}' AND changed = true` })
    return { name: domain, link: `${origin}/query?${pinned(params, at - 7 * 86_400_000, at + 60_000)}` }
  }
  const view = views.get(row.alertKey)
  if (!view) return { name: `Saved view ${row.alertKey.replace(/^view:/, '')}`, link: null }
  const params = pinned(new URLSearchParams(view.view), at - (row.windowMinutes ?? 60) * 60_000, at)
  return { name: view.name, link: `${origin}/query${view.page === 'dashboard' ? '/dashboard' : ''}?${params}` }
}

type AlertRow = typeof alerts.$inferInsert

/** Every row with the same columns (the writer takes them from the first row). */
const alertRow = (fields: AlertRow & { delivery: Delivery }): AlertRow => ({
  viewId: null,
  dataset: null,
  metric: null,
  op: null,
  threshold: null,
  value: null,
  windowMinutes: null,
  ...fields,
})

export interface AlertsResult {
  summary: string
  counts: {
    conditions: number
    evaluated: number
    errors: number
    fired: number
    resolved: number
    suppressed: number
    delivered: number
    failed: number
    pending: number
    attempts: number
  }
  /** The first conditions that could not be evaluated, with why. */
  errors: string[]
  /** What each condition measured this run. */
  evaluations: Array<{ id: string; name: string; condition: string; value: number; firing: boolean; recorded: string | null }>
}

export interface AlertsDeps {
  now?: () => Date
  /** ALERT_COOLDOWN_S unless given. */
  cooldownS?: number
  evaluationBudgetMs?: number
  delivery?: DeliveryOptions
}

export async function runAlerts(database: Database, { dryRun }: { dryRun: boolean }, deps: AlertsDeps = {}): Promise<AlertsResult> {
  const db = database.db
  const now = (deps.now ?? (() => new Date()))()
  const defaults = defaultDestinations(deps.delivery?.url, deps.delivery?.format)
  const views = await listConditions(db)
  const counts: AlertsResult['counts'] = {
    conditions: views.length,
    evaluated: 0,
    errors: 0,
    fired: 0,
    resolved: 0,
    suppressed: 0,
    delivered: 0,
    failed: 0,
    pending: 0,
    attempts: 0,
  }
  const errors: string[] = []
  const evaluations: AlertsResult['evaluations'] = []
  const rows: AlertRow[] = []
  const history: Array<typeof alertEvaluation.$inferInsert> = []
  const deadline = performance.now() + (deps.evaluationBudgetMs ?? EVALUATION_BUDGET_MS)
  for (const view of views) {
    const condition = view.condition!
    if (performance.now() > deadline) {
      counts.errors++
      errors.push(`saved view ${view.id}: not measured, the run's ${(deps.evaluationBudgetMs ?? EVALUATION_BUDGET_MS) / 1000} s for conditions was used up`)
      continue
    }
    const key = `view:${view.id}`
    const webhook = alertDestinations(condition, defaults).length > 0
    const past = await keyHistory(db, key)
    const evaluation = {
      viewId: view.id,
      at: now,
      windowStart: new Date(now.getTime() - condition.windowMinutes * 60_000),
      windowEnd: now,
      threshold: condition.threshold,
      consecutiveWindows: condition.consecutiveWindows,
    }
    let m: WindowsMeasurement
    try {
      m = await measureWindows(database, view, condition, now, past.last === 'fired')
    } catch (error) {
      counts.errors++
      // By id, and a refused filter without its words: the job's errors land in the job_runs dataset, which every query user reads.
      errors.push(`saved view ${view.id}: ${measureError(error)}`)
      history.push({ ...evaluation, value: null, held: 0, state: 'error', error: measureError(error).slice(0, 500) })
      continue
    }
    counts.evaluated++
    const { firing } = m
    const decision = decide(firing, past, now, { cooldownS: deps.cooldownS ?? config.ALERT_COOLDOWN_S, webhook })
    evaluations.push({
      id: view.id,
      name: view.name,
      condition: describeCondition(condition),
      value: m.newest.value,
      firing,
      recorded: decision ? `${decision.event} (${decision.delivery})` : null,
    })
    const state = firing ? 'firing' : past.last === 'fired' ? 'resolved' : 'ok'
    history.push({
      ...evaluation,
      threshold: effectiveThreshold(condition, m.newest.baseline),
      value: m.newest.value,
      held: m.held,
      state,
      delivery: decision?.delivery ?? null,
    })
    if (!decision) continue
    counts[decision.event]++
    if (decision.delivery === 'suppressed') counts.suppressed++
    const { state: viewState } = parseViewState(Object.fromEntries(new URLSearchParams(view.view)))
    rows.push(
      alertRow({
        at: now,
        kind: 'condition',
        event: decision.event,
        alertKey: key,
        viewId: view.id,
        name: null,
        dataset: viewState.dataset,
        metric: condition.metric,
        op: condition.op,
        threshold: effectiveThreshold(condition, m.newest.baseline),
        value: m.newest.value,
        windowMinutes: condition.windowMinutes,
        summary: conditionSummary(view, condition, decision.event, m.newest),
        delivery: decision.delivery,
      }),
    )
  }
  if (!dryRun) {
    await writeAlerts.insert(db, rows)
    await recordEvaluations(db, history, now)
    const byKey = new Map(views.map((v) => [`view:${v.id}`, v]))
    const delivered: DeliveryResult = await deliverPending(
      db,
      (r) => {
        const alertKey = String(r.alert_key)
        const presented = presentAlert(
          config.PUBLIC_BASE_URL,
          {
            kind: String(r.kind),
            name: r.name === null ? null : String(r.name),
            alertKey,
            at: parseTimestamp(r.at),
            windowMinutes: r.window_minutes === null ? null : Number(r.window_minutes),
          },
          byKey,
        )
        return { ...presented, destinations: alertDestinations(byKey.get(alertKey)?.condition ?? null, defaults) }
      },
      deps.delivery,
    )
    await settleEvaluations(db)
    Object.assign(counts, { delivered: delivered.delivered, failed: delivered.failed, pending: delivered.pending, attempts: delivered.attempts })
  }
  const anywhere = defaults.length > 0 || views.some((v) => v.condition?.destinations.length)
  const summary = [
    `Evaluated ${counts.evaluated} of ${counts.conditions} condition${counts.conditions === 1 ? '' : 's'}: ${counts.fired} fired, ${counts.resolved} resolved (${counts.suppressed} within the cooldown, not sent)`,
    dryRun
      ? 'dry run: nothing recorded or sent'
      : anywhere
        ? `${counts.delivered} notification${counts.delivered === 1 ? '' : 's'} delivered, ${counts.pending} pending`
        : 'no ALERT_WEBHOOK_URL: recorded only',
  ].join('; ')
  return { summary: `${summary}.`, counts, errors: errors.slice(0, 5), evaluations }
}

/** Evaluations are kept this long (the alerts dataset keeps the firings and resolutions for QUERY_RETENTION_DAYS). */
export const EVALUATION_RETENTION_DAYS = 30

/** Writes this run's evaluations and deletes those past EVALUATION_RETENTION_DAYS. */
async function recordEvaluations(db: Db, history: Array<typeof alertEvaluation.$inferInsert>, now: Date): Promise<void> {
  if (history.length) await db.insert(alertEvaluation).values(history)
  await db.delete(alertEvaluation).where(lt(alertEvaluation.at, new Date(now.getTime() - EVALUATION_RETENTION_DAYS * 86_400_000)))
}

/**
 * An evaluation whose notification was pending takes the delivery of its alerts row (this run's
 * or a later one's) and each destination's last outcome from the row's attempt log.
 */
async function settleEvaluations(db: Db): Promise<void> {
  await db.execute(sql`UPDATE "alert_evaluation" e SET
      "delivery" = a."delivery",
      "outcomes" = (
        SELECT coalesce(jsonb_agg(jsonb_build_object('destination', l."to", 'delivered', l."ok", 'status', l."status", 'error', l."error") ORDER BY l."to"), '[]'::jsonb)
        FROM (
          SELECT DISTINCT ON (x->>'to') x->>'to' AS "to", (x->>'ok')::boolean AS "ok", (x->>'status')::int AS "status", x->>'error' AS "error"
          FROM jsonb_array_elements(a."attempt_log") WITH ORDINALITY AS t(x, n)
          WHERE x ? 'to'
          ORDER BY x->>'to', n DESC
        ) l
      )
    FROM "alerts" a
    WHERE e."delivery" = 'pending' AND a."at" = e."at" AND a."alert_key" = 'view:' || e."view_id"::text AND a."kind" = 'condition'`)
}

export interface PostureChange {
  checkedAt: Date
  domain: string
  checkName: string
  change: string | null
}

/**
 * Records the domain-posture job's changes as alerts: one `changed` row per domain and run,
 * listing what changed, pending for the next alerts run (or suppressed within the cooldown of
 * the domain's previous notification; `disabled` without a webhook). Returns the rows recorded.
 */
export async function recordPostureChanges(db: Db, changes: PostureChange[], opts: { cooldownS?: number; webhook?: boolean } = {}): Promise<number> {
  const cooldownS = opts.cooldownS ?? config.ALERT_COOLDOWN_S
  const webhook = opts.webhook ?? Boolean(config.ALERT_WEBHOOK_URL)
  const byDomain = new Map<string, PostureChange[]>()
  for (const c of changes) byDomain.set(c.domain, [...(byDomain.get(c.domain) ?? []), c])
  const rows: AlertRow[] = []
  for (const [domain, list] of byDomain) {
    const key = `posture:${domain}`
    const at = list[0].checkedAt
    const { lastFiring } = await keyHistory(db, key)
    const cooled = !lastFiring || at.getTime() - lastFiring.at.getTime() >= cooldownS * 1000
    const what = list.map((c) => (c.checkName === 'overall' ? (c.change ?? 'changed') : `${c.checkName}: ${c.change ?? 'changed'}`)).join('; ')
    rows.push(
      alertRow({
        at,
        kind: 'posture',
        event: 'changed',
        alertKey: key,
        name: domain,
        dataset: 'domain_checks',
        summary: `${domain}: mail and DNS posture changed: ${what}.`.slice(0, 2000),
        delivery: !webhook ? 'disabled' : cooled ? 'pending' : 'suppressed',
      }),
    )
  }
  return writeAlerts.insert(db, rows)
}

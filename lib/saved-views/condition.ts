import { z } from 'zod'

// A saved view's alert condition: a measure of the view's rows (its dataset and filter) over the
// last `windowMinutes`, compared with a threshold, or with the same window of earlier days (a
// departure: the threshold is then a relative change from their median). Pure and browser-safe: the saved-views page
// edits it, lib/saved-views/views.ts stores it (saved_query.condition) and the alerts job
// (lib/alerts/job.ts) evaluates it.

export const METRICS = ['count', 'error_rate', 'new_patterns'] as const
export type Metric = (typeof METRICS)[number]
export const OPS = ['above', 'below'] as const
type Op = (typeof OPS)[number]

export const METRIC_LABELS: Record<Metric, string> = { count: 'Row count', error_rate: 'Error rate', new_patterns: 'New patterns' }
/** How far back a new pattern must not have been seen, when the condition does not say (compareDays). */
export const NEW_PATTERN_DAYS = 7
export const MIN_WINDOW_MINUTES = 1
/** One day: a condition is about what is happening now, and a longer window is a slower query every run. */
export const MAX_WINDOW_MINUTES = 1440
/** Each window is one more measurement per check, so a condition looks back at most this many. */
export const MAX_CONSECUTIVE_WINDOWS = 10

/** The body formats a destination can take (lib/alerts/channels); `auto` picks by the URL, like ALERT_WEBHOOK_FORMAT. */
export const DESTINATION_FORMATS = ['auto', 'json', 'slack'] as const
export const MAX_DESTINATIONS = 5
/** A departure compares with the same window on each of at most this many earlier days. */
export const MAX_COMPARE_DAYS = 7
/** A departure above is at most this much higher (10 = 1,000 % above); below, at most 100 % lower. */
const MAX_DEPARTURE = 10

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i

/** A webhook the server may POST to: https anywhere, or http on this machine's loopback only (a receiver beside the service). */
export function isAllowedWebhookUrl(value: string): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  if (url.username || url.password) return false
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname))
}

export const Destination = z
  .object({
    url: z.string().trim().max(2000).refine(isAllowedWebhookUrl, 'must be an https URL (or http on 127.0.0.1, [::1] or localhost), without a user or password'),
    format: z.enum(DESTINATION_FORMATS).default('auto'),
  })
  .strict()
export type Destination = z.infer<typeof Destination>

export const Condition = z
  .object({
    metric: z.enum(METRICS),
    op: z.enum(OPS),
    /** Rows for `count`; a share from 0 to 1 for `error_rate` (0.05 = 5 %). */
    threshold: z.number().finite().min(0),
    windowMinutes: z.number().int().min(MIN_WINDOW_MINUTES).max(MAX_WINDOW_MINUTES),
    /** Fires only when the condition held in each of the last N windows (back to back, each `windowMinutes` long). */
    consecutiveWindows: z.number().int().min(1).max(MAX_CONSECUTIVE_WINDOWS).default(1),
    /**
     * Departure: compare with the median of the same window on each of the last N days, and read the
     * threshold as a relative change (0.5: 50 % above or below it) instead of a fixed value.
     */
    compareDays: z.number().int().min(1).max(MAX_COMPARE_DAYS).optional(),
    /** New patterns: the text column whose values are turned into templates (lib/query/patterns.ts). */
    patternColumn: z.string().max(64).optional(),
    /** Where its notifications go; none: ALERT_WEBHOOK_URL in ALERT_WEBHOOK_FORMAT. */
    destinations: z.array(Destination).max(MAX_DESTINATIONS).default([]),
  })
  .strict()
  .superRefine((c, ctx) => {
    // New patterns: compareDays is how far back a template must not have been seen, the threshold a number of templates.
    if (c.metric === 'new_patterns') {
      if (!c.patternColumn) ctx.addIssue({ code: 'custom', path: ['patternColumn'], message: 'new patterns need the text column to look at' })
      if (c.op !== 'above') ctx.addIssue({ code: 'custom', path: ['op'], message: 'new patterns fire above a number of new templates (0: any)' })
    } else if (c.patternColumn !== undefined) ctx.addIssue({ code: 'custom', path: ['patternColumn'], message: 'only new patterns look at a column' })
    else if (c.compareDays !== undefined) {
      if (c.threshold > (c.op === 'below' ? 1 : MAX_DEPARTURE))
        ctx.addIssue({
          code: 'custom',
          path: ['threshold'],
          message: `a departure is a relative change: 0.5 = 50 % ${c.op}, at most ${c.op === 'below' ? '1 (100 %)' : `${MAX_DEPARTURE} (${MAX_DEPARTURE * 100} %)`}`,
        })
    } else if (c.metric === 'error_rate' && c.threshold > 1)
      ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'an error rate is a share from 0 to 1 (0.05 = 5 %)' })
    const urls = c.destinations.map((d) => d.url)
    if (new Set(urls).size !== urls.length) ctx.addIssue({ code: 'custom', path: ['destinations'], message: 'each destination must be listed once' })
  })
export type Condition = z.infer<typeof Condition>

/**
 * The value a measurement is compared with: the threshold, or for a departure the earlier days'
 * median moved by the threshold (50 % above 200 rows: 300 rows).
 */
export function effectiveThreshold(condition: Pick<Condition, 'op' | 'threshold' | 'compareDays'> & { metric?: Metric }, baseline?: number): number {
  if (condition.compareDays === undefined || condition.metric === 'new_patterns') return condition.threshold
  const usual = baseline ?? 0
  return condition.op === 'above' ? usual * (1 + condition.threshold) : usual * (1 - condition.threshold)
}

/** Whether a measured value meets the condition (strictly above or below its threshold; a departure's, from its baseline). */
export function isMet(condition: Pick<Condition, 'op' | 'threshold' | 'compareDays'> & { metric?: Metric }, value: number, baseline?: number): boolean {
  const limit = effectiveThreshold(condition, baseline)
  return condition.op === 'above' ? value > limit : value < limit
}

const trim = (n: number) => String(Math.round(n * 1000) / 1000)

/** A value as the condition's metric shows it: `12.5 %` for an error rate, `1,204 rows` for a count. */
export function formatValue(metric: Metric, value: number): string {
  if (metric === 'error_rate') return `${trim(value * 100)} %`
  if (metric === 'new_patterns') return `${Math.round(value).toLocaleString('en-US')} new pattern${Math.round(value) === 1 ? '' : 's'}`
  return `${Math.round(value).toLocaleString('en-US')} row${Math.round(value) === 1 ? '' : 's'}`
}

export function formatWindow(minutes: number): string {
  if (minutes % 60 === 0) return `${minutes / 60} h`
  return `${minutes} min`
}

/**
 * `Error rate above 5 % over the last 15 min`, `… over each of the last 3 windows of 15 min`;
 * a departure: `Row count 50 % above the same 15 min of the last 7 days (their median) …`.
 */
export function describeCondition(
  c: Pick<Condition, 'metric' | 'op' | 'threshold' | 'windowMinutes'> & { consecutiveWindows?: number; compareDays?: number; patternColumn?: string },
): string {
  const n = c.consecutiveWindows ?? 1
  const over = n > 1 ? `over each of the last ${n} windows of ${formatWindow(c.windowMinutes)}` : `over the last ${formatWindow(c.windowMinutes)}`
  if (c.metric === 'new_patterns')
    return `More than ${formatValue('new_patterns', c.threshold)} of ${c.patternColumn} ${over} (templates not seen in the ${c.compareDays ?? NEW_PATTERN_DAYS} days before)`
  if (c.compareDays !== undefined) {
    const days = c.compareDays === 1 ? 'the day before' : `the last ${c.compareDays} days (their median)`
    return `${METRIC_LABELS[c.metric]} ${trim(c.threshold * 100)} % ${c.op} the same window of ${days}, ${over}`
  }
  return `${METRIC_LABELS[c.metric]} ${c.op} ${formatValue(c.metric, c.threshold)} ${over}`
}

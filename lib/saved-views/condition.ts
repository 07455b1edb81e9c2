import { z } from 'zod'

// A saved view's alert condition: a measure of the view's rows (its dataset and filter) over the
// last `windowMinutes`, compared with a threshold. Pure and browser-safe: the saved-views page
// edits it, lib/saved-views/views.ts stores it (saved_query.condition) and the alerts job
// (lib/alerts/job.ts) evaluates it.

export const METRICS = ['count', 'error_rate'] as const
export type Metric = (typeof METRICS)[number]
export const OPS = ['above', 'below'] as const
type Op = (typeof OPS)[number]

export const METRIC_LABELS: Record<Metric, string> = { count: 'Row count', error_rate: 'Error rate' }
export const MIN_WINDOW_MINUTES = 1
/** One day: a condition is about what is happening now, and a longer window is a slower query every run. */
export const MAX_WINDOW_MINUTES = 1440

export const Condition = z
  .object({
    metric: z.enum(METRICS),
    op: z.enum(OPS),
    /** Rows for `count`; a share from 0 to 1 for `error_rate` (0.05 = 5 %). */
    threshold: z.number().finite().min(0),
    windowMinutes: z.number().int().min(MIN_WINDOW_MINUTES).max(MAX_WINDOW_MINUTES),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.metric === 'error_rate' && c.threshold > 1)
      ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'an error rate is a share from 0 to 1 (0.05 = 5 %)' })
  })
export type Condition = z.infer<typeof Condition>

/** Whether a measured value meets the condition (strictly above or below the threshold). */
export function isMet(condition: Pick<Condition, 'op' | 'threshold'>, value: number): boolean {
  return condition.op === 'above' ? value > condition.threshold : value < condition.threshold
}

const trim = (n: number) => String(Math.round(n * 1000) / 1000)

/** A value as the condition's metric shows it: `12.5 %` for an error rate, `1,204 rows` for a count. */
export function formatValue(metric: Metric, value: number): string {
  if (metric === 'error_rate') return `${trim(value * 100)} %`
  return `${Math.round(value).toLocaleString('en-US')} row${Math.round(value) === 1 ? '' : 's'}`
}

export function formatWindow(minutes: number): string {
  if (minutes % 60 === 0) return `${minutes / 60} h`
  return `${minutes} min`
}

/** `Error rate above 5 % over the last 15 min`. */
export function describeCondition(c: Condition): string {
  return `${METRIC_LABELS[c.metric]} ${c.op} ${formatValue(c.metric, c.threshold)} over the last ${formatWindow(c.windowMinutes)}`
}

import { breakdown, c, countOverTime, demo, top, type DatasetDef } from '@/lib/datasets/types'

export const definition: DatasetDef = {
  id: 'alerts',
  label: 'Alerts',
  description:
    'Alert notifications (the alerts job, lib/alerts): one row each time a saved view’s condition fires or resolves (named by the view’s id only), and each time the domain-posture job finds a grade or record that changed. `delivery` says whether the webhook (ALERT_WEBHOOK_URL) took it: pending rows are retried on the next runs until it does; suppressed ones fell in the cooldown of the same alert.',
  table: 'alerts',
  timeColumn: 'at',
  columns: [
    c('at', 'timestamp', 'When the condition was evaluated or the change was found (UTC).'),
    c('kind', 'text', 'condition (a saved view’s condition) or posture (a platform domain’s grade or records changed).'),
    c('event', 'text', 'fired, resolved (condition) or changed (posture).'),
    c('alert_key', 'text', 'What the alert is about: view:<saved view id> or posture:<domain>; the cooldown is per key.'),
    c(
      'view_id',
      'text',
      'The saved view whose condition fired or resolved (its id). Saved views are private: their name and filter are not copied here; the owner finds them on the Saved page.',
    ),
    c('name', 'text', 'The domain of a posture change; empty for a condition (see view_id).'),
    c('dataset', 'text', 'The dataset the condition reads (domain_checks for posture changes).'),
    c('metric', 'text', 'count (rows in the window) or error_rate (share of rows matching the dataset’s error filter, 0–1).'),
    c('op', 'text', 'above or below.'),
    c('threshold', 'number', 'The condition’s threshold.'),
    c('value', 'number', 'The measured value at this evaluation.'),
    c('window_minutes', 'integer', 'The window the condition counts over, in minutes.'),
    c('summary', 'text', 'The notification’s text.'),
    c(
      'delivery',
      'text',
      'pending (not delivered yet: retried on the next runs), delivered, suppressed (within the cooldown) or disabled (no ALERT_WEBHOOK_URL).',
    ),
    c('attempts', 'integer', 'Delivery attempts so far.'),
    c('delivered_at', 'timestamp', 'When the webhook accepted it.'),
    c('last_error', 'text', 'What the last failed attempt got (status or network error).'),
    c('attempt_log', 'json', 'Every delivery attempt: when, HTTP status or error, and how long it took.'),
    demo,
  ],
  retentionDays: 365,
  // Not `delivery`: it changes after the row is written (pending → delivered), and a rollup counts rows once.
  writtenBy: 'jobs',
  rollup: {
    dimensions: ['event', 'kind', 'name'],
    sums: [],
    latency: null,
  },
  sortColumns: ['at', 'alert_key', 'delivery'],
  quickFilters: [
    { label: 'Fired', filter: "event = 'fired'" },
    { label: 'Resolved', filter: "event = 'resolved'" },
    { label: 'Posture changes', filter: "kind = 'posture'" },
    { label: 'Pending delivery', filter: "delivery = 'pending'" },
    { label: 'Suppressed (cooldown)', filter: "delivery = 'suppressed'" },
  ],
  panels: [
    countOverTime,
    {
      id: 'alerts_by_event',
      kind: 'timeseries',
      title: 'Alerts by event over time',
      series: [
        { key: 'fired', label: 'Fired', aggregate: 'count', where: { column: 'event', equals: 'fired' } },
        { key: 'resolved', label: 'Resolved', aggregate: 'count', where: { column: 'event', equals: 'resolved' } },
        { key: 'changed', label: 'Posture changed', aggregate: 'count', where: { column: 'event', equals: 'changed' } },
      ],
    },
    breakdown('kind', 'Kinds'),
    top('name', 'Domains with the most posture changes'),
  ],
}

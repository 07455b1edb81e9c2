import type { AlertChannel } from '@/lib/alerts/channels/channel'

// The generic body (docs/alerts.md "Body"): the row's fields, and for a saved view's condition the
// condition and the measured value. `id` lets a receiver notice a notification it got twice.
export const jsonChannel: AlertChannel = {
  name: 'json',
  body: (alert) => ({
    id: alert.id,
    at: alert.at,
    kind: alert.kind,
    event: alert.event,
    key: alert.alertKey,
    name: alert.name,
    summary: alert.summary,
    ...(alert.kind === 'condition'
      ? {
          condition: { dataset: alert.dataset, metric: alert.metric, op: alert.op, threshold: alert.threshold, windowMinutes: alert.windowMinutes },
          value: alert.value,
        }
      : {}),
    link: alert.link,
    ...(alert.test ? { test: true } : {}),
  }),
}

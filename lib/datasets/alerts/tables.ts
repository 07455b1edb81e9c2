import { doublePrecision, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { id, at, demo, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/alerts/definition'

// Alert notifications (lib/alerts): a saved view's condition firing or resolving, a platform
// domain's posture changing. Partitioned by day like the other datasets (drizzle/0008_alerts.sql).
// Every query user can read this dataset, and saved views are private: a condition's row keeps the
// view's id, never its name or filter (drizzle/0009_alerts_view_id.sql removed them from older rows).
// `delivery`, `attempts`, `delivered_at`, `last_error` and `attempt_log` are updated in place as the
// webhook is retried; none of them is a rollup dimension, so the rollup stays exact.

export const alerts = pgTable(
  'alerts',
  {
    id: id(),
    at: at('at').notNull(),
    kind: text('kind').notNull(),
    event: text('event').notNull(),
    alertKey: text('alert_key').notNull(),
    /** The saved view whose condition this is; its name and filter stay with its owner. */
    viewId: text('view_id'),
    /** The domain of a posture change; null for a condition (drizzle/0009_alerts_view_id.sql). */
    name: text('name'),
    dataset: text('dataset'),
    metric: text('metric'),
    op: text('op'),
    threshold: doublePrecision('threshold'),
    value: doublePrecision('value'),
    windowMinutes: integer('window_minutes'),
    summary: text('summary').notNull(),
    delivery: text('delivery').notNull(),
    attempts: integer('attempts').notNull().default(0),
    deliveredAt: at('delivered_at'),
    lastError: text('last_error'),
    attemptLog: jsonb('attempt_log').$type<Array<Record<string, unknown>>>().notNull().default([]),
    demo: demo(),
  },
  (t) => [
    primaryKey({ name: 'alerts_pkey', columns: [t.at, t.id] }),
    // The latest row of each alert (its state and cooldown) and the quick filters.
    index('alerts_key_time_idx').on(t.alertKey, t.at),
    index('alerts_delivery_time_idx').on(t.delivery, t.at),
    index('alerts_event_time_idx').on(t.event, t.at),
    index('alerts_pending_time_idx')
      .on(t.at)
      .where(sql`delivery = 'pending'`),
  ],
)

export const alertsRollup = rollupTable(definition)

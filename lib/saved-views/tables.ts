import { bigint, doublePrecision, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { id, at } from '@/lib/datasets/storage/columns'

// Saved views and run history of the query application, per identity (`owner`: the access
// policy's email, or `local` for the local operator). `view` is a page's query string as
// lib/view/view-state.ts writes it. Not granted to query_ro: user filters can never read them.

export const savedQuery = pgTable(
  'saved_query',
  {
    // Random, so an id seen once says nothing about anyone else's.
    id: uuid('id').primaryKey().defaultRandom(),
    owner: text('owner').notNull(),
    name: text('name').notNull(),
    page: text('page').notNull(),
    view: text('view').notNull(),
    /** An alert condition on the view (lib/saved-views/condition.ts), evaluated by the alerts job; null: none. */
    condition: jsonb('condition').$type<Record<string, unknown>>(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('saved_query_owner_name_idx').on(t.owner, t.name)],
)

export const queryHistory = pgTable(
  'query_history',
  {
    id: id().primaryKey(),
    owner: text('owner').notNull(),
    page: text('page').notNull(),
    view: text('view').notNull(),
    ranAt: at('ran_at').notNull().defaultNow(),
    /** Matching rows (rows page) or rows in range (dashboard); null when the run failed. */
    rowCount: bigint('row_count', { mode: 'number' }),
    elapsedMs: doublePrecision('elapsed_ms'),
    error: text('error'),
  },
  (t) => [index('query_history_owner_idx').on(t.owner, t.id)],
)

/**
 * One row per evaluation of a saved view's alert condition by the alerts job: the window measured,
 * the value and threshold, the state after it and what became of its notification. Private like
 * the view itself (its owner's page shows it; query_ro never reads it), unlike the alerts dataset,
 * which every query user reads. Deleted with its view; rows past ALERT_EVALUATION_RETENTION_DAYS
 * are deleted by the job.
 */
export const alertEvaluation = pgTable(
  'alert_evaluation',
  {
    id: id().primaryKey(),
    viewId: uuid('view_id')
      .notNull()
      .references(() => savedQuery.id, { onDelete: 'cascade' }),
    at: at('at').notNull(),
    windowStart: at('window_start').notNull(),
    windowEnd: at('window_end').notNull(),
    /** The newest window's value; null when it could not be measured (`error`). */
    value: doublePrecision('value'),
    threshold: doublePrecision('threshold').notNull(),
    /** Windows in a row, newest first, in which the condition held (up to the condition's consecutiveWindows). */
    held: integer('held').notNull(),
    consecutiveWindows: integer('consecutive_windows').notNull(),
    /** ok, firing, resolved (this evaluation resolved it), or error (not measured). */
    state: text('state').notNull(),
    /** The alerts row it recorded: pending, delivered, suppressed, disabled; null when nothing changed. */
    delivery: text('delivery'),
    /** Per destination (its label, never its URL): delivered or not, HTTP status, error. */
    outcomes: jsonb('outcomes').$type<Array<{ destination: string; delivered: boolean; status: number | null; error: string | null }>>(),
    error: text('error'),
  },
  (t) => [index('alert_evaluation_view_idx').on(t.viewId, t.at)],
)

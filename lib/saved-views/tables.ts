import { bigint, doublePrecision, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
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

import { sql } from 'drizzle-orm'
import { boolean, doublePrecision, index, inet, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core'
import { id, at, demo, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/requests/definition'

export const requestLog = pgTable(
  'request_log',
  {
    id: id(),
    time: at('time').notNull(),
    requestId: text('request_id').notNull(),
    method: text('method').notNull(),
    route: text('route').notNull(),
    query: text('query').notNull().default(''),
    status: integer('status').notNull(),
    durationMs: doublePrecision('duration_ms').notNull(),
    clientIp: inet('client_ip'),
    country: text('country'),
    userAgent: text('user_agent'),
    referrer: text('referrer'),
    apiKeyPresent: boolean('api_key_present').notNull().default(false),
    rateLimited: boolean('rate_limited').notNull().default(false),
    mcpTool: text('mcp_tool'),
    demo: demo(),
  },
  (t) => [
    primaryKey({ name: 'request_log_pkey', columns: [t.time, t.id] }),
    unique('request_log_request_id_time_key').on(t.requestId, t.time),
    index('request_log_route_time_idx').on(t.route, t.time),
    index('request_log_status_time_idx').on(t.status, t.time),
    index('request_log_client_ip_idx').on(t.clientIp),
    // Sorting by duration (the slowest requests first) reads this index in order (lib/datasets/catalog.ts sortColumns).
    index('request_log_duration_idx').on(t.durationMs),
    // Quick filters (lib/datasets/catalog.ts): each one reads an index, not every row of a day.
    index('request_log_mcp_tool_time_idx').on(t.mcpTool, t.time),
    index('request_log_rate_limited_time_idx')
      .on(t.time)
      .where(sql`rate_limited`),
    index('request_log_api_key_time_idx')
      .on(t.time)
      .where(sql`api_key_present`),
    index('request_log_slow_time_idx')
      .on(t.time)
      .where(sql`duration_ms > 1000`),
  ],
)

export const requestLogRollup = rollupTable(definition)

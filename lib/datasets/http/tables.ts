import { sql } from 'drizzle-orm'
import { index, inet, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core'
import { id, at, demo, rowHash, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/http/definition'

export const gatewayHttp = pgTable(
  'gateway_http',
  {
    id: id(),
    datetime: at('datetime').notNull(),
    action: text('action'),
    applicationNames: text('application_names'),
    categoryNames: text('category_names'),
    destinationIp: inet('destination_ip'),
    destinationPort: integer('destination_port'),
    deviceName: text('device_name'),
    email: text('email'),
    httpHost: text('http_host'),
    httpMethod: text('http_method'),
    httpStatusCode: integer('http_status_code'),
    httpVersion: text('http_version'),
    policyId: text('policy_id'),
    policyName: text('policy_name'),
    redirectTargetUri: text('redirect_target_uri'),
    referer: text('referer'),
    requestId: text('request_id'),
    sessionId: text('session_id'),
    sourceInternalIp: inet('source_internal_ip'),
    sourceIp: inet('source_ip'),
    sourcePort: integer('source_port'),
    url: text('url'),
    userAgent: text('user_agent'),
    userId: text('user_id'),
    virtualNetworkName: text('virtual_network_name'),
    demo: demo(),
    rowHash: rowHash(),
  },
  (t) => [
    primaryKey({ name: 'gateway_http_pkey', columns: [t.datetime, t.id] }),
    unique('gateway_http_row_hash_key').on(t.rowHash, t.datetime),
    index('gateway_http_action_time_idx').on(t.action, t.datetime),
    index('gateway_http_host_idx').on(t.httpHost),
    index('gateway_http_email_idx').on(t.email),
    index('gateway_http_destination_port_time_idx').on(t.destinationPort, t.datetime),
    index('gateway_http_not_global_time_idx')
      .on(t.datetime)
      .where(sql`policy_name IS DISTINCT FROM 'Global Policy'`),
  ],
)

export const gatewayHttpRollup = rollupTable(definition)

import { sql } from 'drizzle-orm'
import { index, inet, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core'
import { id, at, demo, rowHash, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/dns/definition'

export const gatewayDns = pgTable(
  'gateway_dns',
  {
    id: id(),
    datetime: at('datetime').notNull(),
    coloCode: text('colo_code'),
    deviceName: text('device_name'),
    email: text('email'),
    location: text('location'),
    policyId: text('policy_id'),
    policyName: text('policy_name'),
    protocol: text('protocol'),
    queryApplicationNames: text('query_application_names'),
    queryCategoryNames: text('query_category_names'),
    queryId: text('query_id'),
    queryName: text('query_name'),
    queryTypeName: text('query_type_name'),
    rcode: integer('rcode'),
    redirectTargetUri: text('redirect_target_uri'),
    resolvedIps: text('resolved_ips'),
    resolverDecision: text('resolver_decision'),
    responseTimeMs: integer('response_time_ms'),
    srcIp: inet('src_ip'),
    userId: text('user_id'),
    demo: demo(),
    rowHash: rowHash(),
  },
  (t) => [
    primaryKey({ name: 'gateway_dns_pkey', columns: [t.datetime, t.id] }),
    unique('gateway_dns_row_hash_key').on(t.rowHash, t.datetime),
    // text_pattern_ops: LIKE 'blocked%' uses the index whatever the database's collation.
    index('gateway_dns_decision_time_idx').on(t.resolverDecision.op('text_pattern_ops'), t.datetime),
    index('gateway_dns_query_name_idx').on(t.queryName),
    index('gateway_dns_email_idx').on(t.email),
    index('gateway_dns_rcode_time_idx').on(t.rcode, t.datetime),
    index('gateway_dns_redirected_time_idx')
      .on(t.datetime)
      .where(sql`redirect_target_uri IS NOT NULL`),
    index('gateway_dns_no_user_time_idx')
      .on(t.datetime)
      .where(sql`user_id IS NULL`),
  ],
)

export const gatewayDnsRollup = rollupTable(definition)

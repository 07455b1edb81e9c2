import { index, inet, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core'
import { id, at, demo, rowHash, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/network/definition'

export const gatewayNetwork = pgTable(
  'gateway_network',
  {
    id: id(),
    datetime: at('datetime').notNull(),
    action: text('action'),
    applicationNames: text('application_names'),
    categoryNames: text('category_names'),
    destinationIp: inet('destination_ip'),
    destinationPort: integer('destination_port'),
    detectedProtocol: text('detected_protocol'),
    deviceName: text('device_name'),
    email: text('email'),
    policyId: text('policy_id'),
    policyName: text('policy_name'),
    sessionId: text('session_id'),
    sni: text('sni'),
    sourceInternalIp: inet('source_internal_ip'),
    sourceIp: inet('source_ip'),
    sourcePort: integer('source_port'),
    transport: text('transport'),
    virtualNetworkName: text('virtual_network_name'),
    demo: demo(),
    rowHash: rowHash(),
  },
  (t) => [
    primaryKey({ name: 'gateway_network_pkey', columns: [t.datetime, t.id] }),
    unique('gateway_network_row_hash_key').on(t.rowHash, t.datetime),
    index('gateway_network_action_time_idx').on(t.action, t.datetime),
    index('gateway_network_destination_ip_idx').on(t.destinationIp),
    index('gateway_network_email_idx').on(t.email),
    index('gateway_network_transport_time_idx').on(t.transport, t.datetime),
  ],
)

export const gatewayNetworkRollup = rollupTable(definition)

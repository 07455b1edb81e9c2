import { sql } from 'drizzle-orm'
import { bigint, boolean, index, inet, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core'
import { id, at, demo, rowHash, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/sessions/definition'

export const gatewaySessions = pgTable(
  'gateway_sessions',
  {
    id: id(),
    sessionStartTime: at('session_start_time').notNull(),
    sessionEndTime: at('session_end_time'),
    email: text('email'),
    deviceName: text('device_name'),
    userId: text('user_id'),
    deviceId: text('device_id'),
    registrationId: text('registration_id'),
    sessionId: text('session_id'),
    sourceIp: inet('source_ip'),
    sourceInternalIp: inet('source_internal_ip'),
    sourcePort: integer('source_port'),
    originIp: inet('origin_ip'),
    originPort: integer('origin_port'),
    initialOriginIp: inet('initial_origin_ip'),
    resolvedFqdn: text('resolved_fqdn'),
    sni: text('sni'),
    protocol: text('protocol'),
    detectedProtocol: text('detected_protocol'),
    bytesSent: bigint('bytes_sent', { mode: 'number' }),
    bytesReceived: bigint('bytes_received', { mode: 'number' }),
    connectionReuse: boolean('connection_reuse'),
    connectionCloseReason: text('connection_close_reason'),
    clientTlsVersion: text('client_tls_version'),
    clientTlsCipher: text('client_tls_cipher'),
    clientTlsHandshakeDurationMs: integer('client_tls_handshake_duration_ms'),
    clientTcpHandshakeDurationMs: integer('client_tcp_handshake_duration_ms'),
    originTlsVersion: text('origin_tls_version'),
    originTlsCipher: text('origin_tls_cipher'),
    originTlsHandshakeDurationMs: integer('origin_tls_handshake_duration_ms'),
    originTlsCertificateIssuer: text('origin_tls_certificate_issuer'),
    originTlsCertificateValidationResult: text('origin_tls_certificate_validation_result'),
    egressColoName: text('egress_colo_name'),
    ingressColoName: text('ingress_colo_name'),
    egressIp: inet('egress_ip'),
    egressPort: integer('egress_port'),
    offRamp: text('off_ramp'),
    destinationTunnelId: text('destination_tunnel_id'),
    virtualNetworkId: text('virtual_network_id'),
    ruleEvaluationDurationMs: integer('rule_evaluation_duration_ms'),
    demo: demo(),
    rowHash: rowHash(),
  },
  (t) => [
    primaryKey({ name: 'gateway_sessions_pkey', columns: [t.sessionStartTime, t.id] }),
    unique('gateway_sessions_row_hash_key').on(t.rowHash, t.sessionStartTime),
    index('gateway_sessions_protocol_time_idx').on(t.protocol, t.sessionStartTime),
    index('gateway_sessions_email_idx').on(t.email),
    index('gateway_sessions_client_tls_time_idx').on(t.clientTlsVersion, t.sessionStartTime),
    index('gateway_sessions_reused_time_idx')
      .on(t.sessionStartTime)
      .where(sql`connection_reuse`),
  ],
)

export const gatewaySessionsRollup = rollupTable(definition)

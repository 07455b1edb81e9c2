import { bigint, boolean, doublePrecision, index, inet, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'

// The query application's tables. One table per dataset; lib/query/datasets.ts describes the
// columns users may see and filter on (a unit test keeps the two in step). Column names are
// snake_case; the gateway tables map Logpush's PascalCase fields (QueryName → query_name).
//
// Every table has an identity `id` (a stable tie-break for paging, never exposed) and `demo`
// (rows written by `npm run db:seed`). Gateway tables carry `row_hash`, the SHA-256 of the
// ingested NDJSON line, unique so a re-delivered Logpush batch inserts nothing twice.

const id = () => bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity()
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const demo = () => boolean('demo').notNull().default(false)
const rowHash = () => text('row_hash').unique()

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
    index('request_log_time_idx').on(t.time, t.id),
    index('request_log_route_time_idx').on(t.route, t.time),
    index('request_log_status_time_idx').on(t.status, t.time),
    index('request_log_client_ip_idx').on(t.clientIp),
  ],
)

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
    index('gateway_dns_time_idx').on(t.datetime, t.id),
    index('gateway_dns_decision_time_idx').on(t.resolverDecision, t.datetime),
    index('gateway_dns_query_name_idx').on(t.queryName),
    index('gateway_dns_email_idx').on(t.email),
  ],
)

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
    index('gateway_http_time_idx').on(t.datetime, t.id),
    index('gateway_http_action_time_idx').on(t.action, t.datetime),
    index('gateway_http_host_idx').on(t.httpHost),
    index('gateway_http_email_idx').on(t.email),
  ],
)

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
    index('gateway_network_time_idx').on(t.datetime, t.id),
    index('gateway_network_action_time_idx').on(t.action, t.datetime),
    index('gateway_network_destination_ip_idx').on(t.destinationIp),
    index('gateway_network_email_idx').on(t.email),
  ],
)

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
    index('gateway_sessions_time_idx').on(t.sessionStartTime, t.id),
    index('gateway_sessions_protocol_time_idx').on(t.protocol, t.sessionStartTime),
    index('gateway_sessions_email_idx').on(t.email),
  ],
)

// Saved views and run history of the query application, per identity (`owner`: the access
// policy's email, or `local` for the local operator). `view` is a page's query string as
// lib/query/view-state.ts writes it. Not granted to query_ro: user filters can never read them.

export const savedQuery = pgTable(
  'saved_query',
  {
    // Random, so an id seen once says nothing about anyone else's.
    id: uuid('id').primaryKey().defaultRandom(),
    owner: text('owner').notNull(),
    name: text('name').notNull(),
    page: text('page').notNull(),
    view: text('view').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('saved_query_owner_name_idx').on(t.owner, t.name)],
)

export const queryHistory = pgTable(
  'query_history',
  {
    id: id(),
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

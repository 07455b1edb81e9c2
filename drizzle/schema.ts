import { sql } from 'drizzle-orm'
import { bigint, boolean, doublePrecision, index, inet, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, unique, uniqueIndex, uuid, type PgColumnBuilderBase } from 'drizzle-orm/pg-core'
import { DATASETS, rollupDimensions, type ColumnType, type DatasetDef } from '../lib/query/datasets'

// The query application's tables. One table per dataset; lib/query/datasets.ts describes the
// columns users may see and filter on (a unit test keeps the two in step). Column names are
// snake_case; the gateway tables map Logpush's PascalCase fields (QueryName → query_name).
//
// Every table has an identity `id` (a stable tie-break for paging, never exposed) and `demo`
// (rows written by `npm run db:seed`). Gateway tables carry `row_hash`, the SHA-256 of the
// ingested NDJSON line, so a re-delivered Logpush batch inserts nothing twice; request_log rows
// are unique by request id, so a replayed entry is not stored twice either.
//
// The five dataset tables and their rollups are partitioned by day on their time column
// (drizzle/0002_partitions.sql; lib/query/partitions.ts creates and drops partitions). Postgres
// requires every primary key and unique constraint of a partitioned table to include the
// partition key, hence (time, id), (request_id, time) and (row_hash, datetime): the row hash
// covers the line's own timestamp, so the pair is as unique as the hash alone.

const id = () => bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity()
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const demo = () => boolean('demo').notNull().default(false)
const rowHash = () => text('row_hash')

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
    // Sorting by duration (the slowest requests first) reads this index in order (lib/query/datasets.ts sortColumns).
    index('request_log_duration_idx').on(t.durationMs),
    // Quick filters (lib/query/datasets.ts): each one reads an index, not every row of a day.
    index('request_log_mcp_tool_time_idx').on(t.mcpTool, t.time),
    index('request_log_rate_limited_time_idx').on(t.time).where(sql`rate_limited`),
    index('request_log_api_key_time_idx').on(t.time).where(sql`api_key_present`),
    index('request_log_slow_time_idx').on(t.time).where(sql`duration_ms > 1000`),
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
    primaryKey({ name: 'gateway_dns_pkey', columns: [t.datetime, t.id] }),
    unique('gateway_dns_row_hash_key').on(t.rowHash, t.datetime),
    // text_pattern_ops: LIKE 'blocked%' uses the index whatever the database's collation.
    index('gateway_dns_decision_time_idx').on(t.resolverDecision.op('text_pattern_ops'), t.datetime),
    index('gateway_dns_query_name_idx').on(t.queryName),
    index('gateway_dns_email_idx').on(t.email),
    index('gateway_dns_rcode_time_idx').on(t.rcode, t.datetime),
    index('gateway_dns_redirected_time_idx').on(t.datetime).where(sql`redirect_target_uri IS NOT NULL`),
    index('gateway_dns_no_user_time_idx').on(t.datetime).where(sql`user_id IS NULL`),
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
    primaryKey({ name: 'gateway_http_pkey', columns: [t.datetime, t.id] }),
    unique('gateway_http_row_hash_key').on(t.rowHash, t.datetime),
    index('gateway_http_action_time_idx').on(t.action, t.datetime),
    index('gateway_http_host_idx').on(t.httpHost),
    index('gateway_http_email_idx').on(t.email),
    index('gateway_http_destination_port_time_idx').on(t.destinationPort, t.datetime),
    index('gateway_http_not_global_time_idx').on(t.datetime).where(sql`policy_name IS DISTINCT FROM 'Global Policy'`),
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
    primaryKey({ name: 'gateway_network_pkey', columns: [t.datetime, t.id] }),
    unique('gateway_network_row_hash_key').on(t.rowHash, t.datetime),
    index('gateway_network_action_time_idx').on(t.action, t.datetime),
    index('gateway_network_destination_ip_idx').on(t.destinationIp),
    index('gateway_network_email_idx').on(t.email),
    index('gateway_network_transport_time_idx').on(t.transport, t.datetime),
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
    primaryKey({ name: 'gateway_sessions_pkey', columns: [t.sessionStartTime, t.id] }),
    unique('gateway_sessions_row_hash_key').on(t.rowHash, t.sessionStartTime),
    index('gateway_sessions_protocol_time_idx').on(t.protocol, t.sessionStartTime),
    index('gateway_sessions_email_idx').on(t.email),
    index('gateway_sessions_client_tls_time_idx').on(t.clientTlsVersion, t.sessionStartTime),
    index('gateway_sessions_reused_time_idx').on(t.sessionStartTime).where(sql`connection_reuse`),
  ],
)

// Scheduled operator jobs (lib/jobs): one row per run, written when it ends, and the history of
// the platform domains' graded checks (the domain-posture job). Both are datasets of the query
// application, partitioned by day like the others (drizzle/0004_job_history.sql).

export const jobRuns = pgTable(
  'job_runs',
  {
    id: id(),
    startedAt: at('started_at').notNull(),
    endedAt: at('ended_at').notNull(),
    job: text('job').notNull(),
    trigger: text('trigger').notNull(),
    outcome: text('outcome').notNull(),
    durationMs: doublePrecision('duration_ms').notNull(),
    counts: jsonb('counts').$type<Record<string, number>>().notNull().default({}),
    summary: text('summary'),
    error: text('error'),
    demo: demo(),
  },
  (t) => [
    primaryKey({ name: 'job_runs_pkey', columns: [t.startedAt, t.id] }),
    // The last success and last run of each job (/api/health) and the quick filters by job.
    index('job_runs_job_time_idx').on(t.job, t.startedAt),
    index('job_runs_outcome_time_idx').on(t.outcome, t.startedAt),
    index('job_runs_trigger_time_idx').on(t.trigger, t.startedAt),
  ],
)

export const domainChecks = pgTable(
  'domain_checks',
  {
    id: id(),
    checkedAt: at('checked_at').notNull(),
    domain: text('domain').notNull(),
    checkName: text('check_name').notNull(),
    grade: text('grade'),
    score: integer('score'),
    status: text('status').notNull(),
    findings: text('findings').notNull().default(''),
    previousStatus: text('previous_status'),
    changed: boolean('changed').notNull().default(false),
    change: text('change'),
    demo: demo(),
  },
  (t) => [
    primaryKey({ name: 'domain_checks_pkey', columns: [t.checkedAt, t.id] }),
    // The previous run's row of each domain and check (change detection).
    index('domain_checks_domain_check_time_idx').on(t.domain, t.checkName, t.checkedAt),
    index('domain_checks_check_time_idx').on(t.checkName, t.checkedAt),
    index('domain_checks_status_time_idx').on(t.status, t.checkedAt),
    index('domain_checks_grade_time_idx').on(t.grade, t.checkedAt),
    index('domain_checks_changed_time_idx').on(t.checkedAt).where(sql`changed`),
  ],
)

// Per-minute and per-hour aggregates of each dataset, kept in step with its rows in the same
// statement that inserts them (lib/query/rollups.ts). One row per (grain, bucket, dimension,
// value): `dimension` names the column it groups by ('' for the totals), that column holds the
// value and the other dimension columns are NULL. Latency datasets also group the totals by
// `duration_bucket`, a log-scale histogram bucket of the duration (2^(1/4) steps).

const DIMENSION_TYPES: Record<ColumnType, (name: string) => PgColumnBuilderBase> = {
  timestamp: (name) => at(name),
  text: (name) => text(name),
  integer: (name) => integer(name),
  bigint: (name) => bigint(name, { mode: 'number' }),
  number: (name) => doublePrecision(name),
  boolean: (name) => boolean(name),
  inet: (name) => inet(name),
  json: (name) => jsonb(name),
}

function rollupTable(dataset: DatasetDef) {
  const dimensions = rollupDimensions(dataset)
  const typeOf = (name: string) => dataset.columns.find((c) => c.name === name)!.type
  const latency = dataset.panels.some((p) => p.kind === 'latency')
  const sums = [...new Set(dataset.panels.flatMap((p) => (p.kind === 'timeseries' ? p.series.flatMap((s) => (s.aggregate === 'sum' ? [s.column] : [])) : [])))]
  const columns: Record<string, PgColumnBuilderBase> = {
    dimension: text('dimension').notNull(),
    grain: text('grain').notNull(),
    bucket: at('bucket').notNull(),
    ...Object.fromEntries(dimensions.map((name) => [name, DIMENSION_TYPES[typeOf(name)](name)])),
    ...(latency ? { duration_bucket: smallint('duration_bucket') } : {}),
    rows: bigint('rows', { mode: 'number' }).notNull(),
    ...(latency ? { server_errors: bigint('server_errors', { mode: 'number' }).notNull(), client_errors: bigint('client_errors', { mode: 'number' }).notNull() } : {}),
    ...Object.fromEntries(sums.map((name) => [name, bigint(name, { mode: 'number' }).notNull()])),
  }
  const name = `${dataset.table}_rollup`
  return pgTable(name, columns, (t) => {
    const key = ['dimension', 'grain', 'bucket', ...dimensions, ...(latency ? ['duration_bucket'] : [])].map((c) => t[c])
    return [unique(`${name}_key`).on(...(key as [never, ...never[]])).nullsNotDistinct()]
  })
}

export const requestLogRollup = rollupTable(DATASETS.requests)
export const gatewayDnsRollup = rollupTable(DATASETS.dns)
export const gatewayHttpRollup = rollupTable(DATASETS.http)
export const gatewayNetworkRollup = rollupTable(DATASETS.network)
export const gatewaySessionsRollup = rollupTable(DATASETS.sessions)
export const jobRunsRollup = rollupTable(DATASETS.job_runs)
export const domainChecksRollup = rollupTable(DATASETS.domain_checks)

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

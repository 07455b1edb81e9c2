// The datasets of the query application: what each table holds, the columns users may see and
// filter on, quick filters (in our filter dialect: a Postgres WHERE fragment) and dashboard panels.
// Pure data, no database imports: the operations registry and the pages read it too.
//
// Column names are snake_case. Gateway columns name the Logpush field they are loaded from
// (`source`); list-valued Logpush fields (category names, resolved IPs…) are stored as one text
// value joined with ", ", so LIKE/ILIKE filters work on them.

export const COLUMN_TYPES = ['timestamp', 'text', 'integer', 'bigint', 'number', 'boolean', 'inet', 'json'] as const
export type ColumnType = (typeof COLUMN_TYPES)[number]

export interface ColumnDef {
  name: string
  type: ColumnType
  description: string
  /** Logpush field name (gateway datasets). */
  source?: string
  /** How values are shown: `bytes` as KB/MB/GB (the exact number stays in the cell's title). */
  unit?: 'bytes'
}

export interface QuickFilter {
  label: string
  filter: string
}

/** A count series may count only the rows where one column equals a value (runs by outcome). */
export type SeriesDef =
  | { key: string; label: string; aggregate: 'count'; where?: { column: string; equals: string | boolean } }
  | { key: string; label: string; aggregate: 'sum'; column: string }

export type PanelDef =
  | { id: string; kind: 'timeseries'; title: string; series: SeriesDef[]; unit?: 'bytes' }
  | { id: string; kind: 'breakdown'; title: string; column: string }
  | { id: string; kind: 'top'; title: string; column: string; limit: number }
  | { id: string; kind: 'latency'; title: string; column: string; errorStatusColumn: string }

export interface DatasetDef {
  id: DatasetId
  label: string
  description: string
  table: string
  timeColumn: string
  columns: ColumnDef[]
  quickFilters: QuickFilter[]
  panels: PanelDef[]
  /** Days of rows kept (whole day partitions are dropped after that); QUERY_RETENTION_DAYS overrides it. */
  retentionDays: number
  /**
   * Low-cardinality columns the per-minute rollup groups by besides the breakdown and top panels'
   * own, so the dashboard can answer quick filters on them from the rollup (lib/query/rollups.ts).
   */
  rollupFilterColumns: string[]
  /**
   * Columns rows may be sorted by: the time column and the leading column of a full (not partial)
   * btree index, so a sorted page reads an index in order instead of sorting every row of the range.
   * tests/unit/query-sort.test.ts checks each one against the migrations.
   */
  sortColumns: string[]
}

export const DATASET_IDS = ['requests', 'dns', 'http', 'network', 'sessions', 'job_runs', 'domain_checks'] as const
export type DatasetId = (typeof DATASET_IDS)[number]

const c = (name: string, type: ColumnType, description: string, source?: string): ColumnDef =>
  source ? { name, type, description, source } : { name, type, description }

const demo = c('demo', 'boolean', 'True for generated demonstration rows (npm run db:seed).')
const countOverTime: PanelDef = { id: 'count_over_time', kind: 'timeseries', title: 'Rows over time', series: [{ key: 'rows', label: 'Rows', aggregate: 'count' }] }
const top = (column: string, title: string): PanelDef => ({ id: `top_${column}`, kind: 'top', title, column, limit: 10 })
const breakdown = (column: string, title: string): PanelDef => ({ id: `by_${column}`, kind: 'breakdown', title, column })

const requests: DatasetDef = {
  id: 'requests',
  label: 'API requests',
  description: 'The API’s own request log: one row per /api request and MCP tool call, written asynchronously in batches. Client addresses are truncated to /24 (IPv4) or /48 (IPv6) unless LOG_FULL_IP is set; query-string values are redacted.',
  table: 'request_log',
  timeColumn: 'time',
  columns: [
    c('time', 'timestamp', 'When the request arrived (UTC).'),
    c('request_id', 'text', 'Request id (X-Request-Id).'),
    c('method', 'text', 'HTTP method.'),
    c('route', 'text', 'Route template, e.g. /api/directory/convertid/{id}; the raw path when no route matched.'),
    c('query', 'text', 'Query string with values redacted (ip=***).'),
    c('status', 'integer', 'HTTP status of the response.'),
    c('duration_ms', 'number', 'Time to produce the response, in milliseconds.'),
    c('client_ip', 'inet', 'Client address, truncated to its /24 or /48 network unless LOG_FULL_IP is set. Filter with e.g. client_ip << \'203.0.113.0/24\'.'),
    c('country', 'text', 'Two-letter country code from the edge header, when present.'),
    c('user_agent', 'text', 'User-Agent header.'),
    c('referrer', 'text', 'Referer header or the ref query parameter.'),
    c('api_key_present', 'boolean', 'Whether an API key header was sent (the key is never stored).'),
    c('rate_limited', 'boolean', 'Whether the request was refused by the rate limit.'),
    c('mcp_tool', 'text', 'MCP tool name, for tool calls.'),
    demo,
  ],
  retentionDays: 90,
  rollupFilterColumns: ['rate_limited', 'api_key_present'],
  sortColumns: ['time', 'status', 'duration_ms', 'route', 'client_ip', 'mcp_tool'],
  quickFilters: [
    { label: 'Server errors', filter: 'status >= 500' },
    { label: 'Client errors', filter: 'status BETWEEN 400 AND 499' },
    { label: 'Rate limited', filter: 'rate_limited = true' },
    { label: 'Slow (> 1 s)', filter: 'duration_ms > 1000' },
    { label: 'With API key', filter: 'api_key_present = true' },
    { label: 'MCP tool calls', filter: 'mcp_tool IS NOT NULL' },
    { label: 'Not found', filter: 'status = 404' },
  ],
  panels: [
    countOverTime,
    { id: 'latency', kind: 'latency', title: 'Duration and error rate', column: 'duration_ms', errorStatusColumn: 'status' },
    breakdown('status', 'Responses by status'),
    top('route', 'Top routes'),
    top('client_ip', 'Top client networks'),
    top('country', 'Top countries'),
    top('user_agent', 'Top user agents'),
    top('mcp_tool', 'Top MCP tools'),
  ],
}

const dns: DatasetDef = {
  id: 'dns',
  label: 'Gateway DNS',
  description: 'Zero Trust gateway DNS logs: one row per DNS query resolved by the gateway, with the policy decision. Loaded by Logpush (dataset gateway_dns).',
  table: 'gateway_dns',
  timeColumn: 'datetime',
  columns: [
    c('datetime', 'timestamp', 'When the query was received (UTC).', 'Datetime'),
    c('colo_code', 'text', 'Data centre that resolved the query (IATA code).', 'ColoCode'),
    c('device_name', 'text', 'Name of the device that sent the query.', 'DeviceName'),
    c('email', 'text', 'Email of the signed-in user.', 'Email'),
    c('location', 'text', 'Gateway location name.', 'Location'),
    c('policy_id', 'text', 'Id of the matched policy.', 'PolicyID'),
    c('policy_name', 'text', 'Name of the matched policy.', 'PolicyName'),
    c('protocol', 'text', 'Transport of the query (udp, tcp, https, tls).', 'Protocol'),
    c('query_application_names', 'text', 'Applications the queried name belongs to, comma-separated.', 'QueryApplicationNames'),
    c('query_category_names', 'text', 'Content categories of the queried name, comma-separated.', 'QueryCategoryNames'),
    c('query_id', 'text', 'Unique id of the query.', 'QueryID'),
    c('query_name', 'text', 'Queried domain name.', 'QueryName'),
    c('query_type_name', 'text', 'Record type (A, AAAA, HTTPS…).', 'QueryTypeName'),
    c('rcode', 'integer', 'DNS response code (0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN).', 'RCode'),
    c('redirect_target_uri', 'text', 'Block page or redirect target, when the policy redirected.', 'RedirectTargetURI'),
    c('resolved_ips', 'text', 'Addresses in the answer, comma-separated.', 'ResolvedIPs'),
    c('resolver_decision', 'text', 'Gateway decision (allowedOnNoPolicyMatch, blockedByCategory, overrideForSafeSearch…).', 'ResolverDecision'),
    c('response_time_ms', 'integer', 'Resolution time in milliseconds.', 'ResponseTimeMS'),
    c('src_ip', 'inet', 'Source address of the query.', 'SrcIP'),
    c('user_id', 'text', 'Id of the signed-in user.', 'UserID'),
    demo,
  ],
  retentionDays: 30,
  rollupFilterColumns: ['rcode'],
  // Not resolver_decision: its index is text_pattern_ops (byte order), which ORDER BY cannot read.
  sortColumns: ['datetime', 'rcode', 'query_name', 'email'],
  quickFilters: [
    { label: 'Blocked', filter: "resolver_decision LIKE 'blocked%'" },
    { label: 'Allowed', filter: "resolver_decision LIKE 'allowed%'" },
    { label: 'No policy matched', filter: "resolver_decision = 'allowedOnNoPolicyMatch'" },
    { label: 'Redirected', filter: 'redirect_target_uri IS NOT NULL' },
    { label: 'No user', filter: 'user_id IS NULL' },
    { label: 'NXDOMAIN', filter: 'rcode = 3' },
  ],
  panels: [
    countOverTime,
    breakdown('resolver_decision', 'Decisions'),
    top('query_name', 'Top domains'),
    top('query_category_names', 'Top categories'),
    top('query_application_names', 'Top applications'),
    top('device_name', 'Top devices'),
    top('email', 'Top users'),
    top('policy_name', 'Top policies'),
    top('location', 'Top locations'),
    top('colo_code', 'Traffic by data centre'),
    breakdown('query_type_name', 'Record types'),
    breakdown('protocol', 'Protocols'),
  ],
}

const http: DatasetDef = {
  id: 'http',
  label: 'Gateway HTTP',
  description: 'Zero Trust gateway HTTP logs: one row per HTTP request inspected by the gateway proxy, with the policy action. Loaded by Logpush (dataset gateway_http).',
  table: 'gateway_http',
  timeColumn: 'datetime',
  columns: [
    c('datetime', 'timestamp', 'When the request was received (UTC).', 'Datetime'),
    c('action', 'text', 'Gateway action (allow, block, isolate, bypass…).', 'Action'),
    c('application_names', 'text', 'Applications of the destination, comma-separated.', 'ApplicationNames'),
    c('category_names', 'text', 'Content categories of the destination, comma-separated.', 'CategoryNames'),
    c('destination_ip', 'inet', 'Destination address.', 'DestinationIP'),
    c('destination_port', 'integer', 'Destination port.', 'DestinationPort'),
    c('device_name', 'text', 'Name of the device.', 'DeviceName'),
    c('email', 'text', 'Email of the signed-in user.', 'Email'),
    c('http_host', 'text', 'Host header.', 'HTTPHost'),
    c('http_method', 'text', 'HTTP method.', 'HTTPMethod'),
    c('http_status_code', 'integer', 'Status returned to the client.', 'HTTPStatusCode'),
    c('http_version', 'text', 'HTTP version (HTTP/1.1, HTTP/2, HTTP/3).', 'HTTPVersion'),
    c('policy_id', 'text', 'Id of the matched policy.', 'PolicyID'),
    c('policy_name', 'text', 'Name of the matched policy.', 'PolicyName'),
    c('redirect_target_uri', 'text', 'Block page or redirect target.', 'RedirectTargetURI'),
    c('referer', 'text', 'Referer header.', 'Referer'),
    c('request_id', 'text', 'Unique id of the request.', 'RequestID'),
    c('session_id', 'text', 'Id of the network session carrying the request.', 'SessionID'),
    c('source_internal_ip', 'inet', 'Address of the device inside its network.', 'SourceInternalIP'),
    c('source_ip', 'inet', 'Public source address.', 'SourceIP'),
    c('source_port', 'integer', 'Source port.', 'SourcePort'),
    c('url', 'text', 'Full URL.', 'URL'),
    c('user_agent', 'text', 'User-Agent header.', 'UserAgent'),
    c('user_id', 'text', 'Id of the signed-in user.', 'UserID'),
    c('virtual_network_name', 'text', 'Virtual network of the device.', 'VirtualNetworkName'),
    demo,
  ],
  retentionDays: 30,
  rollupFilterColumns: ['destination_port'],
  sortColumns: ['datetime', 'action', 'destination_port', 'http_host', 'email'],
  quickFilters: [
    { label: 'Blocked', filter: "action = 'block'" },
    { label: 'Allowed', filter: "action = 'allow'" },
    { label: 'Bypassed', filter: "action = 'bypass'" },
    { label: 'Port 80', filter: 'destination_port = 80' },
    { label: 'Port 443', filter: 'destination_port = 443' },
    { label: 'Not the global policy', filter: "policy_name IS DISTINCT FROM 'Global Policy'" },
  ],
  panels: [
    countOverTime,
    breakdown('action', 'Actions'),
    top('http_host', 'Top hosts'),
    top('category_names', 'Top categories'),
    top('application_names', 'Top applications'),
    top('device_name', 'Top devices'),
    top('email', 'Top users'),
    top('policy_name', 'Top policies'),
    breakdown('http_method', 'HTTP methods'),
    breakdown('http_version', 'HTTP versions'),
    breakdown('http_status_code', 'Status codes'),
  ],
}

const network: DatasetDef = {
  id: 'network',
  label: 'Gateway network',
  description: 'Zero Trust gateway network logs: one row per L4 connection evaluated by network policies. Loaded by Logpush (dataset gateway_network).',
  table: 'gateway_network',
  timeColumn: 'datetime',
  columns: [
    c('datetime', 'timestamp', 'When the connection was evaluated (UTC).', 'Datetime'),
    c('action', 'text', 'Gateway action (allow, block, audit_ssh…).', 'Action'),
    c('application_names', 'text', 'Applications of the destination, comma-separated.', 'ApplicationNames'),
    c('category_names', 'text', 'Content categories of the destination, comma-separated.', 'CategoryNames'),
    c('destination_ip', 'inet', 'Destination address.', 'DestinationIP'),
    c('destination_port', 'integer', 'Destination port.', 'DestinationPort'),
    c('detected_protocol', 'text', 'Protocol detected by inspection (tls, http, ssh…).', 'DetectedProtocol'),
    c('device_name', 'text', 'Name of the device.', 'DeviceName'),
    c('email', 'text', 'Email of the signed-in user.', 'Email'),
    c('policy_id', 'text', 'Id of the matched policy.', 'PolicyID'),
    c('policy_name', 'text', 'Name of the matched policy.', 'PolicyName'),
    c('session_id', 'text', 'Id of the network session.', 'SessionID'),
    c('sni', 'text', 'TLS server name indication.', 'SNI'),
    c('source_internal_ip', 'inet', 'Address of the device inside its network.', 'SourceInternalIP'),
    c('source_ip', 'inet', 'Public source address.', 'SourceIP'),
    c('source_port', 'integer', 'Source port.', 'SourcePort'),
    c('transport', 'text', 'Transport protocol (tcp, udp, icmp).', 'Transport'),
    c('virtual_network_name', 'text', 'Virtual network of the device.', 'VirtualNetworkName'),
    demo,
  ],
  retentionDays: 30,
  rollupFilterColumns: [],
  sortColumns: ['datetime', 'action', 'transport', 'destination_ip', 'email'],
  quickFilters: [
    { label: 'Blocked', filter: "action = 'block'" },
    { label: 'Allowed', filter: "action = 'allow'" },
    { label: 'TCP', filter: "transport = 'tcp'" },
    { label: 'UDP', filter: "transport = 'udp'" },
  ],
  panels: [
    countOverTime,
    breakdown('action', 'Actions'),
    top('sni', 'Top server names'),
    top('destination_ip', 'Top destinations'),
    top('destination_port', 'Top destination ports'),
    top('application_names', 'Top applications'),
    top('device_name', 'Top devices'),
    top('email', 'Top users'),
    top('policy_name', 'Top policies'),
    breakdown('transport', 'Transports'),
    breakdown('detected_protocol', 'Detected protocols'),
  ],
}

const sessions: DatasetDef = {
  id: 'sessions',
  label: 'Gateway sessions',
  description: 'Zero Trust gateway session logs: one row per proxied network session, with volumes, TLS details and routing. Loaded by Logpush (dataset zero_trust_network_sessions). The time column is the session start.',
  table: 'gateway_sessions',
  timeColumn: 'session_start_time',
  columns: [
    c('session_start_time', 'timestamp', 'When the session started (UTC).', 'SessionStartTime'),
    c('session_end_time', 'timestamp', 'When the session ended (UTC).', 'SessionEndTime'),
    c('email', 'text', 'Email of the signed-in user.', 'Email'),
    c('device_name', 'text', 'Name of the device.', 'DeviceName'),
    c('user_id', 'text', 'Id of the signed-in user.', 'UserID'),
    c('device_id', 'text', 'Id of the device.', 'DeviceID'),
    c('registration_id', 'text', 'Id of the device registration.', 'RegistrationID'),
    c('session_id', 'text', 'Id of the session.', 'SessionID'),
    c('source_ip', 'inet', 'Public source address.', 'SourceIP'),
    c('source_internal_ip', 'inet', 'Address of the device inside its network.', 'SourceInternalIP'),
    c('source_port', 'integer', 'Source port.', 'SourcePort'),
    c('origin_ip', 'inet', 'Address of the origin server.', 'OriginIP'),
    c('origin_port', 'integer', 'Port of the origin server.', 'OriginPort'),
    c('initial_origin_ip', 'inet', 'Origin address the client first asked for.', 'InitialOriginIP'),
    c('resolved_fqdn', 'text', 'Name the origin address was resolved from.', 'ResolvedFQDN'),
    c('sni', 'text', 'TLS server name indication.', 'SNI'),
    c('protocol', 'text', 'Transport protocol (tcp, udp).', 'Protocol'),
    c('detected_protocol', 'text', 'Protocol detected by inspection.', 'DetectedProtocol'),
    { ...c('bytes_sent', 'bigint', 'Bytes sent by the client.', 'BytesSent'), unit: 'bytes' },
    { ...c('bytes_received', 'bigint', 'Bytes received by the client.', 'BytesReceived'), unit: 'bytes' },
    c('connection_reuse', 'boolean', 'Whether an origin connection was reused.', 'ConnectionReuse'),
    c('connection_close_reason', 'text', 'Why the connection closed.', 'ConnectionCloseReason'),
    c('client_tls_version', 'text', 'TLS version between client and gateway.', 'ClientTLSVersion'),
    c('client_tls_cipher', 'text', 'Cipher between client and gateway.', 'ClientTLSCipher'),
    c('client_tls_handshake_duration_ms', 'integer', 'Client TLS handshake time, ms.', 'ClientTLSHandshakeDurationMs'),
    c('client_tcp_handshake_duration_ms', 'integer', 'Client TCP handshake time, ms.', 'ClientTCPHandshakeDurationMs'),
    c('origin_tls_version', 'text', 'TLS version between gateway and origin.', 'OriginTLSVersion'),
    c('origin_tls_cipher', 'text', 'Cipher between gateway and origin.', 'OriginTLSCipher'),
    c('origin_tls_handshake_duration_ms', 'integer', 'Origin TLS handshake time, ms.', 'OriginTLSHandshakeDurationMs'),
    c('origin_tls_certificate_issuer', 'text', 'Issuer of the origin certificate.', 'OriginTLSCertificateIssuer'),
    c('origin_tls_certificate_validation_result', 'text', 'Result of validating the origin certificate.', 'OriginTLSCertificateValidationResult'),
    c('egress_colo_name', 'text', 'Data centre the session left from.', 'EgressColoName'),
    c('ingress_colo_name', 'text', 'Data centre the session entered.', 'IngressColoName'),
    c('egress_ip', 'inet', 'Egress address used towards the origin.', 'EgressIP'),
    c('egress_port', 'integer', 'Egress port.', 'EgressPort'),
    c('off_ramp', 'text', 'How the session left the network (internet, tunnel…).', 'OffRamp'),
    c('destination_tunnel_id', 'text', 'Tunnel the session was routed to.', 'DestinationTunnelID'),
    c('virtual_network_id', 'text', 'Virtual network id.', 'VirtualNetworkID'),
    c('rule_evaluation_duration_ms', 'integer', 'Time spent evaluating policies, ms.', 'RuleEvaluationDurationMs'),
    demo,
  ],
  retentionDays: 30,
  rollupFilterColumns: ['connection_reuse'],
  sortColumns: ['session_start_time', 'protocol', 'client_tls_version', 'email'],
  quickFilters: [
    { label: 'TCP', filter: "protocol = 'tcp'" },
    { label: 'UDP', filter: "protocol = 'udp'" },
    { label: 'TLS 1.3', filter: "client_tls_version = 'TLSv1.3'" },
    { label: 'TLS 1.2', filter: "client_tls_version = 'TLSv1.2'" },
    { label: 'Reused connections', filter: 'connection_reuse = true' },
  ],
  panels: [
    countOverTime,
    {
      id: 'bytes_over_time',
      kind: 'timeseries',
      title: 'Bytes up and down over time',
      unit: 'bytes',
      series: [
        { key: 'bytes_sent', label: 'Bytes sent', aggregate: 'sum', column: 'bytes_sent' },
        { key: 'bytes_received', label: 'Bytes received', aggregate: 'sum', column: 'bytes_received' },
      ],
    },
    breakdown('protocol', 'Protocols'),
    top('sni', 'Top server names'),
    top('device_name', 'Top devices'),
    top('email', 'Top users'),
    top('egress_colo_name', 'Traffic by data centre'),
    breakdown('client_tls_version', 'Client TLS versions'),
    breakdown('connection_close_reason', 'Close reasons'),
  ],
}

const jobRuns: DatasetDef = {
  id: 'job_runs',
  label: 'Job runs',
  description: 'Scheduled operator jobs (lib/jobs): one row per run, whether started by a cron route, the command line (npm run job) or an internal HTTP operation, written when the run ends. `skipped` means another run of the same job held the lock.',
  table: 'job_runs',
  timeColumn: 'started_at',
  columns: [
    c('started_at', 'timestamp', 'When the run started (UTC).'),
    c('ended_at', 'timestamp', 'When the run ended (UTC).'),
    c('job', 'text', 'Job name (message-center-publish, message-center-dedupe, domain-posture, partition-maintenance).'),
    c('trigger', 'text', 'What started it: cron (a cron route), cli (npm run job) or http (an internal operation).'),
    c('outcome', 'text', 'succeeded, failed, skipped (already running elsewhere) or dry-run.'),
    c('duration_ms', 'number', 'How long the run took, in milliseconds.'),
    c('counts', 'json', 'What the run did, as counts (published, deleted, checks, changes…).'),
    c('summary', 'text', 'One line saying what the run did.'),
    c('error', 'text', 'Why the run failed, when it did.'),
    demo,
  ],
  retentionDays: 90,
  rollupFilterColumns: [],
  sortColumns: ['started_at', 'job', 'outcome', 'trigger'],
  quickFilters: [
    { label: 'Failed', filter: "outcome = 'failed'" },
    { label: 'Already running (skipped)', filter: "outcome = 'skipped'" },
    { label: 'Dry runs', filter: "outcome = 'dry-run'" },
    { label: 'From cron', filter: "trigger = 'cron'" },
    { label: 'Message Center publishing', filter: "job = 'message-center-publish'" },
    { label: 'Domain posture', filter: "job = 'domain-posture'" },
  ],
  panels: [
    countOverTime,
    {
      id: 'runs_by_outcome',
      kind: 'timeseries',
      title: 'Runs by outcome over time',
      series: [
        { key: 'succeeded', label: 'Succeeded', aggregate: 'count', where: { column: 'outcome', equals: 'succeeded' } },
        { key: 'failed', label: 'Failed', aggregate: 'count', where: { column: 'outcome', equals: 'failed' } },
        { key: 'skipped', label: 'Skipped', aggregate: 'count', where: { column: 'outcome', equals: 'skipped' } },
        { key: 'dry_run', label: 'Dry run', aggregate: 'count', where: { column: 'outcome', equals: 'dry-run' } },
      ],
    },
    breakdown('outcome', 'Outcomes'),
    breakdown('job', 'Runs by job'),
    breakdown('trigger', 'Triggers'),
  ],
}

const domainChecks: DatasetDef = {
  id: 'domain_checks',
  label: 'Domain checks',
  description: 'History of the platform domains’ mail and DNS posture (the domain-posture job runs the graded check of GET /api/domains/{domain} for each of PLATFORM_DOMAINS). One row per domain and check per run; `check_name` = overall holds the grade and score. `change` says what differs from the previous run (null when nothing did).',
  table: 'domain_checks',
  timeColumn: 'checked_at',
  columns: [
    c('checked_at', 'timestamp', 'When the run checked the domain (UTC).'),
    c('domain', 'text', 'The platform domain.'),
    c('check_name', 'text', 'overall, or one check: mx, spf, dmarc, dkim, mtaSts, tlsRpt, bimi, dnssec, caa, dane.'),
    c('grade', 'text', 'The domain’s grade at this run (A–F).'),
    c('score', 'integer', 'The domain’s score at this run (0–100).'),
    c('status', 'text', 'The check’s status (pass, warn, fail, info, not_found); for overall: graded, or error when the domain could not be checked.'),
    c('findings', 'text', 'What the check found: its detail line and warnings; for overall, the summary counts or the error.'),
    c('previous_status', 'text', 'Status at the previous run (for overall: the previous grade); null on the first run.'),
    c('changed', 'boolean', 'Whether the status, grade or findings differ from the previous run.'),
    c('change', 'text', 'What changed, e.g. "grade B → A" or "status warn → fail"; null when nothing did.'),
    demo,
  ],
  retentionDays: 365,
  rollupFilterColumns: ['changed'],
  sortColumns: ['checked_at', 'domain', 'check_name', 'status', 'grade'],
  quickFilters: [
    { label: 'Changes', filter: 'changed = true' },
    { label: 'Grades only', filter: "check_name = 'overall'" },
    { label: 'Failing checks', filter: "status = 'fail'" },
    { label: 'Grade D or F', filter: "grade IN ('D', 'F')" },
  ],
  panels: [
    countOverTime,
    {
      id: 'changes_over_time',
      kind: 'timeseries',
      title: 'Grade and status changes over time',
      series: [{ key: 'changes', label: 'Changes', aggregate: 'count', where: { column: 'changed', equals: true } }],
    },
    top('change', 'Grade and status changes'),
    breakdown('grade', 'Grades'),
    breakdown('status', 'Check statuses'),
    top('domain', 'Domains'),
    breakdown('check_name', 'Checks'),
  ],
}

export const DATASETS: Readonly<Record<DatasetId, DatasetDef>> = { requests, dns, http, network, sessions, job_runs: jobRuns, domain_checks: domainChecks }

export function getDataset(id: DatasetId): DatasetDef {
  return DATASETS[id]
}

/** The columns a dataset's rollup groups by: every breakdown and top panel's and series condition's, then its filter columns. */
export function rollupDimensions(dataset: DatasetDef): string[] {
  const panelColumns = dataset.panels.flatMap((p) => (p.kind === 'breakdown' || p.kind === 'top' ? [p.column] : p.kind === 'timeseries' ? p.series.flatMap((s) => (s.aggregate === 'count' && s.where ? [s.where.column] : [])) : []))
  return [...new Set([...panelColumns, ...dataset.rollupFilterColumns])]
}

import { getTableColumns, sql, type SQL } from 'drizzle-orm'
import type { Db } from '@/lib/db/client'
import { DATASET_IDS, DATASETS, type DatasetId } from '@/lib/query/datasets'
import { createPartitions } from '@/lib/query/partitions'
import { DATASET_TABLES, rollupIntoSql } from '@/lib/query/rollups'

// Demonstration data for every dataset (`npm run db:seed`), generated inside the database with
// generate_series so a million rows take seconds, not a million round trips. Every row is marked
// demo = true; reseeding replaces earlier demo rows and never touches real ones. Values are drawn
// from small skewed vocabularies so the dashboards show realistic top-10s and a long tail.
// Each day is built as a plain table (kept real rows, then generated ones), its rollup computed
// from it in SQL, and both are swapped in for the day's partitions with ATTACH PARTITION, which
// builds the indexes once per day (rebuildDay): ten million rows take minutes, not the better
// part of an hour that inserting into the indexed, partitioned table took.

const CHUNK = 100_000

const lit = (v: string | number | null) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)
/** One element of `values` per row; skew > 1 favours the first ones. `r` is a random() column. */
const pick = (values: Array<string | number | null>, r: string, skew = 1.6) =>
  `(ARRAY[${values.map(lit).join(',')}])[1 + floor(power(${r}, ${skew}) * ${values.length})::int]`

const USERS = ['ana@example.com', 'ben@example.com', 'chloe@example.com', 'dev@example.com', 'eli@example.com', 'fatima@example.com', 'gus@example.com', 'hana@example.com', 'ivan@example.com', 'jo@example.com', 'kim@example.com', 'lea@example.com']
const userField = (field: 'email' | 'user_id' | 'device', u: string) => {
  const values = USERS.map((e, i) => (field === 'email' ? e : field === 'user_id' ? `0c2d${String(i).padStart(4, '0')}-7a1e-4b8c-9f00-${String(1e11 + i * 7919)}` : `${e.split('@')[0]}-${i % 3 === 0 ? 'macbook' : i % 3 === 1 ? 'thinkpad' : 'pixel'}`))
  return `(ARRAY[${values.map(lit).join(',')}])[1 + ${u}]`
}
const DOMAINS = ['www.google.com', 'api.github.com', 'outlook.office365.com', 'slack.com', 'zoom.us', 'www.youtube.com', 'login.microsoftonline.com', 'cdn.jsdelivr.net', 'registry.npmjs.org', 'www.reddit.com', 'docs.example.com', 'tracker.adnetwork.test', 'malware.bad.test', 'files.dropbox.com', 'www.wikipedia.org']
const CATEGORIES = ['Technology', 'Business', 'Productivity', 'Social Networks', 'Streaming Video', 'Advertisements', 'Malware', 'Education', 'News']
const APPS = ['Google Workspace', 'GitHub', 'Microsoft 365', 'Slack', 'Zoom', 'YouTube', null, 'Dropbox']
const COLOS = ['CDG', 'AMS', 'FRA', 'LHR', 'IAD', 'SFO', 'NRT', 'GRU']
const LOCATIONS = ['HQ Paris', 'Remote', 'Branch Lyon', 'Branch Berlin']
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'NL', 'JP', 'BR', 'IN', 'CA', 'AU', null]

/** Where the rows of one statement go, and when "now" is (one instant for the whole seed). */
interface Target {
  /** The table inserted into. */
  table: string
  /** Identity sequence of the dataset's table: set when `table` is a plain table being filled before ATTACH. */
  idSequence: string | null
  now: string
  /** Times are clamped into [from, to), the day being built. */
  from: string
  to: string
}

const since = (target: Target, days: number, r: string) =>
  `greatest('${target.from}'::timestamptz, least('${target.to}'::timestamptz - interval '1 microsecond', '${target.now}'::timestamptz - ${r} * interval '${days} days'))`
/** A version 7 UUID (time-ordered, as request ids increasingly are) for the time column `t`. */
const timeOrderedUuid = (t: string) => {
  const ms = `lpad(to_hex(floor(extract(epoch FROM ${t}) * 1000)::bigint), 12, '0')`
  const rand = `md5(random()::text)`
  return `(SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-' || substr('89ab', 1 + floor(random() * 4)::int, 1) || substr(r, 4, 3) || '-' || substr(r, 7, 12) FROM (SELECT ${ms} AS h, ${rand} AS r) AS v)`
}

/**
 * Per dataset: an INSERT … SELECT over generate_series(1, n) of the demo rows numbered done + 1 …
 * done + n of `total`. Rows come in time order (r0 runs from 1 down to 0 over the whole seed, one
 * random slot per row), so each chunk appends to its day partitions' indexes instead of touching
 * every page of them.
 */
function insertSql(target: Target, id: DatasetId, n: number, days: number, done: number, total: number): SQL {
  const statement = generatorSql(target, id, n, days, done, total)
  const table = DATASETS[id].table
  if (!statement.startsWith(`INSERT INTO ${table} (`) || !statement.includes('\nSELECT ')) throw new Error(`seed: unexpected statement for ${id}`)
  // Into a plain table (not the partitioned parent): its ids come from the parent's sequence.
  const into = target.idSequence ? `INSERT INTO "${target.table}" (id, ` : `INSERT INTO "${target.table}" (`
  const select = target.idSequence ? `\nSELECT nextval('${target.idSequence}'), ` : '\nSELECT '
  return sql.raw(into + statement.slice(`INSERT INTO ${table} (`.length).replace('\nSELECT ', select))
}

function generatorSql(target: Target, id: DatasetId, n: number, days: number, done: number, total: number): string {
  const rows = `(SELECT g, 1 - (${done} + g - random()) / ${total} AS r0, random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, floor(power(random(), 1.4) * ${USERS.length})::int AS u FROM generate_series(1, ${n}) AS g) s`
  switch (id) {
    case 'requests': {
      const routes = ['/api/health', '/api/ipcheck', '/api/domains/{domain}', '/api/directory/tenantinfo', '/api/generate/guid', '/api/deviceosversion/{deviceModel}', '/api/mcp', '/api/directory/convertid/{id}', '/api/blog/authors', '/api/generate/timestamp/ticks', '/api/openapi.json', '/api/pds/repos', '/wp-login.php']
      const tools = ['check_api_health', 'check_domain_health', 'list_domains', 'list_policies', 'get_pds_bsky_heatmap', 'get_pds_repos']
      const status = `CASE WHEN r1 < 0.02 THEN 429 WHEN r1 < 0.05 THEN 404 WHEN r1 < 0.09 THEN 400 WHEN r1 < 0.097 THEN 500 WHEN r1 < 0.1 THEN 502 WHEN r1 < 0.13 THEN 304 ELSE 200 END`
      return `INSERT INTO request_log (time, request_id, method, route, query, status, duration_ms, client_ip, country, user_agent, referrer, api_key_present, rate_limited, mcp_tool, demo)
SELECT at, ${timeOrderedUuid('at')}, ${pick(['GET', 'GET', 'GET', 'POST', 'OPTIONS'], 'r2', 1)}, route, CASE WHEN r3 < 0.4 THEN 'domain=***' ELSE '' END,
  ${status}, round((exp(1 + r4 * 3.2) * CASE WHEN r5 < 0.01 THEN 40 ELSE 1 END)::numeric, 2)::float8,
  ('198.51.' || floor(power(r5, 2) * 60)::int || '.0')::inet, ${pick(COUNTRIES, 'r3')},
  ${pick(['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15', 'curl/8.7.1', 'python-requests/2.32.3', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36', 'node', 'Go-http-client/2.0'], 'r4')},
  CASE WHEN r5 > 0.9 THEN ${pick(['https://example.com/', 'https://news.ycombinator.com/', 'docs'], 'r2')} END,
  r2 < 0.1, ${status} = 429, CASE WHEN route = '/api/mcp' THEN ${pick(tools, 'r3')} END, true
FROM (SELECT *, ${pick(routes, 'r1', 2.2)} AS route, ${since(target, days, 'r0')} AS at FROM ${rows}) t`
    }
    case 'dns': {
      const decision = pick(['allowedOnNoPolicyMatch', 'allowedOnNoPolicyMatch', 'allowedOnNoPolicyMatch', 'allowedOnNoPolicyMatch', 'allowedByQueryName', 'blockedByCategory', 'blockedByQueryName', 'overrideForSafeSearch', 'blockedAlwaysCategory'], 'r1', 1.3)
      return `INSERT INTO gateway_dns (datetime, colo_code, device_name, email, location, policy_id, policy_name, protocol, query_application_names, query_category_names, query_id, query_name, query_type_name, rcode, redirect_target_uri, resolved_ips, resolver_decision, response_time_ms, src_ip, user_id, demo)
SELECT ${since(target, days, 'r0')}, ${pick(COLOS, 'r2')}, ${userField('device', 'u')}, CASE WHEN r5 < 0.1 THEN NULL ELSE ${userField('email', 'u')} END, ${pick(LOCATIONS, 'r3')},
  CASE WHEN d LIKE 'allowedOnNoPolicyMatch' THEN NULL ELSE 'a7f1c0de-' || length(d) END,
  CASE WHEN d LIKE 'blocked%' THEN 'Block security risks' WHEN d = 'overrideForSafeSearch' THEN 'Safe search' WHEN d = 'allowedByQueryName' THEN 'Allow corporate domains' END,
  ${pick(['https', 'udp', 'tls', 'tcp'], 'r4')}, ${pick(APPS, 'r2')}, ${pick(CATEGORIES, 'r3')}, gen_random_uuid()::text, qn,
  ${pick(['A', 'AAAA', 'HTTPS', 'CNAME', 'TXT', 'MX'], 'r4')}, CASE WHEN r5 > 0.95 THEN 3 WHEN r5 > 0.94 THEN 2 ELSE 0 END,
  CASE WHEN d LIKE 'blocked%' THEN 'https://blocked.example.com/?domain=' || qn END,
  CASE WHEN d NOT LIKE 'blocked%' AND r5 <= 0.94 THEN '104.16.' || floor(r2 * 255)::int || '.' || floor(r3 * 255)::int END,
  d, 1 + floor(power(r4, 3) * 120)::int, ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, CASE WHEN r5 < 0.1 THEN NULL ELSE ${userField('user_id', 'u')} END, true
FROM (SELECT *, ${decision} AS d, ${pick(DOMAINS, 'r2', 1.8)} AS qn FROM ${rows}) t`
    }
    case 'http': {
      const action = pick(['allow', 'allow', 'allow', 'allow', 'allow', 'block', 'bypass', 'isolate'], 'r1', 1.2)
      return `INSERT INTO gateway_http (datetime, action, application_names, category_names, destination_ip, destination_port, device_name, email, http_host, http_method, http_status_code, http_version, policy_id, policy_name, redirect_target_uri, referer, request_id, session_id, source_internal_ip, source_ip, source_port, url, user_agent, user_id, virtual_network_name, demo)
SELECT ${since(target, days, 'r0')}, a, ${pick(APPS, 'r2')}, ${pick(CATEGORIES, 'r3')}, ('104.18.' || floor(r2 * 64)::int || '.' || floor(r4 * 255)::int)::inet, CASE WHEN r5 < 0.07 THEN 80 ELSE 443 END,
  ${userField('device', 'u')}, ${userField('email', 'u')}, h, ${pick(['GET', 'GET', 'POST', 'PUT', 'HEAD'], 'r3', 1)},
  CASE WHEN a = 'block' THEN 403 WHEN r4 < 0.03 THEN 404 WHEN r4 < 0.04 THEN 502 ELSE 200 END, ${pick(['HTTP/2', 'HTTP/1.1', 'HTTP/3'], 'r5')},
  CASE WHEN a = 'allow' AND r3 < 0.7 THEN NULL ELSE 'b4d0c0de-' || length(a) END,
  CASE WHEN a = 'allow' AND r3 < 0.7 THEN 'Global Policy' WHEN a = 'block' THEN 'Block malware and ads' WHEN a = 'bypass' THEN 'Do not inspect banking' WHEN a = 'isolate' THEN 'Isolate unknown sites' ELSE 'Allow corporate apps' END,
  CASE WHEN a = 'block' THEN 'https://blocked.example.com/' END, CASE WHEN r2 > 0.7 THEN 'https://' || h || '/' END,
  md5(g::text || r0::text), md5(u::text || floor(r0 * 5000)::text), ('10.0.' || u || '.' || (10 + u))::inet, ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, 1024 + floor(r4 * 60000)::int,
  'https://' || h || ${pick(['/', '/api/v1/items', '/login', '/assets/app.js', '/search?q=***'], 'r4')},
  ${pick(['Mozilla/5.0 (Macintosh) Safari/605.1.15', 'Mozilla/5.0 (Windows NT 10.0) Chrome/131.0', 'Slack/4.41', 'Zoom/6.2'], 'r2')},
  ${userField('user_id', 'u')}, ${pick(['default', 'office-vnet', null], 'r3')}, true
FROM (SELECT *, ${action} AS a, ${pick(DOMAINS, 'r2', 1.8)} AS h FROM ${rows}) t`
    }
    case 'network': {
      return `INSERT INTO gateway_network (datetime, action, application_names, category_names, destination_ip, destination_port, detected_protocol, device_name, email, policy_id, policy_name, session_id, sni, source_internal_ip, source_ip, source_port, transport, virtual_network_name, demo)
SELECT ${since(target, days, 'r0')}, ${pick(['allow', 'allow', 'allow', 'allow', 'block', 'audit_ssh'], 'r1', 1.2)}, ${pick(APPS, 'r2')}, ${pick(CATEGORIES, 'r3')},
  ('172.64.' || floor(power(r2, 2) * 40)::int || '.' || floor(r4 * 255)::int)::inet, ${pick([443, 443, 80, 53, 22, 3389, 8443], 'r3', 1.5)},
  ${pick(['tls', 'http', 'dns', 'ssh', null], 'r4')}, ${userField('device', 'u')}, ${userField('email', 'u')},
  CASE WHEN r1 < 0.7 THEN NULL ELSE 'c0ffee00-' || floor(r1 * 4)::int END, CASE WHEN r1 < 0.7 THEN NULL ELSE ${pick(['Block RDP', 'Allow SSH for admins', 'Block high-risk ports'], 'r5', 1)} END,
  md5(u::text || floor(r0 * 5000)::text), ${pick(DOMAINS, 'r2', 1.8)}, ('10.0.' || u || '.' || (10 + u))::inet, ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, 1024 + floor(r4 * 60000)::int,
  ${pick(['tcp', 'tcp', 'tcp', 'udp', 'icmp'], 'r5', 1)}, ${pick(['default', 'office-vnet', null], 'r3')}, true
FROM ${rows}`
    }
    case 'sessions': {
      return `INSERT INTO gateway_sessions (session_start_time, session_end_time, email, device_name, user_id, device_id, registration_id, session_id, source_ip, source_internal_ip, source_port, origin_ip, origin_port, initial_origin_ip, resolved_fqdn, sni, protocol, detected_protocol, bytes_sent, bytes_received, connection_reuse, connection_close_reason, client_tls_version, client_tls_cipher, client_tls_handshake_duration_ms, client_tcp_handshake_duration_ms, origin_tls_version, origin_tls_cipher, origin_tls_handshake_duration_ms, origin_tls_certificate_issuer, origin_tls_certificate_validation_result, egress_colo_name, ingress_colo_name, egress_ip, egress_port, off_ramp, destination_tunnel_id, virtual_network_id, rule_evaluation_duration_ms, demo)
SELECT st, st + (power(r1, 3) * interval '2 hours'), ${userField('email', 'u')}, ${userField('device', 'u')}, ${userField('user_id', 'u')}, md5('device' || u), md5('reg' || u), md5(g::text || r0::text),
  ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, ('10.0.' || u || '.' || (10 + u))::inet, 1024 + floor(r4 * 60000)::int,
  ('104.18.' || floor(r2 * 64)::int || '.' || floor(r4 * 255)::int)::inet, CASE WHEN r3 < 0.9 THEN 443 ELSE 80 END, ('104.18.' || floor(r2 * 64)::int || '.' || floor(r4 * 255)::int)::inet,
  fq, fq, p, CASE WHEN p = 'udp' THEN 'quic' ELSE ${pick(['tls', 'http'], 'r4', 1)} END,
  floor(exp(6 + r2 * 10))::bigint, floor(exp(7 + r3 * 12))::bigint, r5 < 0.3, ${pick(['CLIENT_CLOSED', 'ORIGIN_CLOSED', 'IDLE_TIMEOUT', 'ORIGIN_UNREACHABLE'], 'r4')},
  ${pick(['TLSv1.3', 'TLSv1.3', 'TLSv1.2', null], 'r2', 1)}, ${pick(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'ECDHE-RSA-AES128-GCM-SHA256'], 'r3')},
  5 + floor(r4 * 60)::int, 1 + floor(r5 * 40)::int, ${pick(['TLSv1.3', 'TLSv1.2'], 'r2', 1.5)}, ${pick(['TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256'], 'r3')},
  5 + floor(r1 * 80)::int, ${pick(["Let's Encrypt", 'Google Trust Services', 'DigiCert Inc'], 'r5')}, CASE WHEN r5 < 0.98 THEN 'VALID' ELSE 'EXPIRED' END,
  ${pick(COLOS, 'r2')}, ${pick(COLOS, 'r3')}, ('203.0.113.' || (1 + floor(r4 * 8)::int))::inet, 1024 + floor(r5 * 60000)::int,
  ${pick(['INTERNET', 'INTERNET', 'TUNNEL'], 'r1', 1)}, CASE WHEN r1 > 0.8 THEN 'tunnel-' || floor(r2 * 3)::int END, ${pick(['default', 'office-vnet', null], 'r3')}, floor(r4 * 3)::int, true
FROM (SELECT *, ${since(target, days, 'r0')} AS st, ${pick(DOMAINS, 'r2', 1.8)} AS fq, ${pick(['tcp', 'tcp', 'tcp', 'udp'], 'r1', 1)} AS p FROM ${rows}) t`
    }
    case 'job_runs': {
      const jobs = ['message-center-publish', 'message-center-dedupe', 'domain-posture', 'partition-maintenance']
      return `INSERT INTO job_runs (started_at, ended_at, job, trigger, outcome, duration_ms, counts, summary, error, demo)
SELECT st, st + d * interval '1 millisecond', j, ${pick(['cron', 'cron', 'cron', 'cli', 'http'], 'r2', 1)}, o, d,
  jsonb_build_object('scanned', floor(r4 * 60)::int, 'changed', floor(power(r5, 4) * 5)::int), 'Demonstration run (' || o || ').',
  CASE WHEN o = 'failed' THEN 'Upstream answered 502 Bad Gateway.' END, true
FROM (SELECT *, ${since(target, days, 'r0')} AS st, ${pick(jobs, 'r1', 1)} AS j, ${pick(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'dry-run', 'skipped', 'failed'], 'r3', 1.3)} AS o, round((150 + power(r4, 2) * 8000)::numeric, 2)::float8 AS d FROM ${rows}) t`
    }
    case 'domain_checks': {
      const checks = ['overall', 'mx', 'spf', 'dmarc', 'dkim', 'mtaSts', 'tlsRpt', 'bimi', 'dnssec', 'caa', 'dane']
      return `INSERT INTO domain_checks (checked_at, domain, check_name, grade, score, status, findings, previous_status, changed, change, demo)
SELECT ${since(target, days, 'r0')}, ${pick(['example.com', 'example.org', 'example.net'], 'r1', 1)}, cn, gr, CASE gr WHEN 'A' THEN 92 WHEN 'B' THEN 80 WHEN 'C' THEN 65 ELSE 35 END,
  CASE WHEN cn = 'overall' THEN 'graded' ELSE st END, 'Demonstration finding for ' || cn || '.', CASE WHEN ch THEN CASE WHEN cn = 'overall' THEN pg ELSE ps END ELSE CASE WHEN cn = 'overall' THEN gr ELSE st END END, ch,
  CASE WHEN ch THEN CASE WHEN cn = 'overall' THEN 'grade ' || pg || ' → ' || gr ELSE 'status ' || ps || ' → ' || st END END, true
FROM (SELECT *, CASE WHEN gr = 'B' THEN 'A' ELSE 'B' END AS pg, CASE WHEN st = 'warn' THEN 'pass' ELSE 'warn' END AS ps
  FROM (SELECT *, ${pick(checks, 'r2', 1)} AS cn, ${pick(['A', 'A', 'B', 'B', 'C', 'F'], 'r3', 1)} AS gr, ${pick(['pass', 'pass', 'pass', 'warn', 'fail', 'info', 'not_found'], 'r4', 1)} AS st, r5 < 0.05 AS ch FROM ${rows}) v) t`
    }
  }
}

export interface SeedOptions {
  rows: number
  datasets?: DatasetId[]
  days?: number
  /** Keep earlier demo rows instead of replacing them. */
  append?: boolean
  onProgress?: (dataset: DatasetId, done: number) => void
}

const DAY_MS = 86_400_000
const iso = (t: number) => new Date(t).toISOString()
const rowsOf = (result: unknown) => (result as { rows: Array<Record<string, unknown>> }).rows

/**
 * Rebuilds one day partition of a dataset and of its rollup, in one transaction: the day's rows
 * that stay (real rows; every row with `append`) and `n` new demo rows go into a plain table
 * without indexes, the rollup of that table into another, and both replace the day's partitions
 * by ATTACH PARTITION, which builds the indexes once over the whole day instead of row by row. A
 * CHECK constraint on the range spares ATTACH its validating scan. Writers to that day wait
 * meanwhile (the old partitions are locked first).
 */
async function rebuildDay(db: Db, id: DatasetId, day: number, generated: { n: number; done: number; total: number; days: number; now: number; idSequence: string }, append: boolean): Promise<void> {
  const d = DATASETS[id]
  const stamp = new Date(day).toISOString().slice(0, 10).replaceAll('-', '')
  const bounds = `FROM ('${iso(day)}') TO ('${iso(day + DAY_MS)}')`
  const columns = Object.values(getTableColumns(DATASET_TABLES[id].rows)).map((c) => `"${c.name}"`).join(', ')
  await db.transaction(async (tx) => {
    const parts = [
      { parent: d.table, key: d.timeColumn },
      { parent: `${d.table}_rollup`, key: 'bucket' },
    ].map((p) => ({ ...p, partition: `${p.parent}_p${stamp}`, building: `${p.parent}_p${stamp}_seed` }))
    for (const p of parts) await tx.execute(sql.raw(`LOCK TABLE "${p.partition}" IN ACCESS EXCLUSIVE MODE`))
    for (const p of parts) await tx.execute(sql.raw(`CREATE TABLE "${p.building}" (LIKE "${p.parent}" INCLUDING DEFAULTS)`))
    const [rows, rollup] = parts
    await tx.execute(sql.raw(`INSERT INTO "${rows.building}" (${columns}) SELECT ${columns} FROM "${rows.partition}"${append ? '' : ' WHERE NOT demo'}`))
    const target: Target = { table: rows.building, idSequence: generated.idSequence, now: iso(generated.now), from: iso(day), to: iso(day + DAY_MS) }
    for (let i = 0; i < generated.n; i += CHUNK) {
      const n = Math.min(CHUNK, generated.n - i)
      await tx.execute(insertSql(target, id, n, generated.days, generated.done + i, generated.total))
    }
    await tx.execute(rollupIntoSql(id, sql`${sql.identifier(rows.building)}`, rollup.building))
    for (const p of parts) {
      await tx.execute(sql.raw(`ALTER TABLE "${p.building}" ADD CONSTRAINT "${p.building}_range" CHECK ("${p.key}" >= '${iso(day)}' AND "${p.key}" < '${iso(day + DAY_MS)}')`))
      await tx.execute(sql.raw(`DROP TABLE "${p.partition}"`))
      await tx.execute(sql.raw(`ALTER TABLE "${p.building}" RENAME TO "${p.partition}"`))
      await tx.execute(sql.raw(`ALTER TABLE "${p.parent}" ATTACH PARTITION "${p.partition}" FOR VALUES ${bounds}`))
      await tx.execute(sql.raw(`ALTER TABLE "${p.partition}" DROP CONSTRAINT "${p.building}_range"`))
    }
  })
}

export async function seed(db: Db, opts: SeedOptions): Promise<Record<string, number>> {
  const days = opts.days ?? 30
  const out: Record<string, number> = {}
  const now = Date.now()
  const from = now - days * DAY_MS
  for (const id of opts.datasets ?? DATASET_IDS) {
    const table = DATASETS[id].table
    // Every day's partition exists (rows stranded in the default partition moved into it).
    await createPartitions(db, id, new Date(from), new Date(now))
    const idSequence = String(rowsOf(await db.execute(sql`SELECT pg_get_serial_sequence(${table}, 'id') AS "s"`))[0].s)
    const first = Math.floor(from / DAY_MS) * DAY_MS
    // Earlier demo rows outside the new range: their days are rebuilt without them.
    const stale = opts.append
      ? []
      : rowsOf(
          await db.execute(
            sql`SELECT DISTINCT floor(extract(epoch FROM ${sql.identifier(DATASETS[id].timeColumn)}) / 86400)::bigint * 86400000 AS "day" FROM ${sql.identifier(table)} WHERE demo AND (${sql.identifier(DATASETS[id].timeColumn)} < ${iso(first)}::timestamptz OR ${sql.identifier(DATASETS[id].timeColumn)} >= ${iso(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS)}::timestamptz)`,
          ),
        ).map((r) => Number(r.day))
    for (const day of stale) {
      await createPartitions(db, id, new Date(day), new Date(day))
      await rebuildDay(db, id, day, { n: 0, done: 0, total: opts.rows, days, now, idSequence }, false)
    }
    // Rows are numbered in time order over [from, now]; day D gets the numbers whose times fall in it.
    const numberAt = (t: number) => Math.round((opts.rows * (Math.min(now, Math.max(from, t)) - from)) / (now - from))
    for (let day = first; day <= now; day += DAY_MS) {
      const done = numberAt(day)
      const n = numberAt(day + DAY_MS) - done
      await rebuildDay(db, id, day, { n, done, total: opts.rows, days, now, idSequence }, opts.append ?? false)
      opts.onProgress?.(id, done + n)
    }
    // Visibility map for index-only scans, fresh statistics (of the parent and its partitions).
    await db.execute(sql`VACUUM ANALYZE ${sql.identifier(table)}`)
    await db.execute(sql`VACUUM ANALYZE ${sql.identifier(`${table}_rollup`)}`)
    out[id] = opts.rows
  }
  return out
}

import ipaddr from 'ipaddr.js'
import { z } from 'zod'

// The only module that reads process.env. Parsed once; a bad value stops start-up naming the
// variable. Every variable has a default that works, so the service runs with none set.

const emptyAsUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v)
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional())
const optionalUrl = z.preprocess(emptyAsUndefined, z.url().optional())
const url = (fallback: string) => z.preprocess(emptyAsUndefined, z.url().default(fallback))
const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(min).max(max).default(fallback))
const bool = (fallback: boolean) => z.preprocess(emptyAsUndefined, z.stringbool().default(fallback))
const list = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : (v ?? []),
  z.array(z.string()),
)

/**
 * `requests=90,dns=30` (per dataset) or `60` (every dataset, stored under `*`) → days per name.
 * The datasets room checks the names at start-up (lib/datasets/partitions.ts), so a new
 * dataset needs no change here.
 */
const retention = z.preprocess(
  (v) => {
    if (typeof v !== 'string' || v.trim() === '') return {}
    if (/^\s*\d+\s*$/.test(v)) return { '*': v.trim() }
    return Object.fromEntries(
      v
        .split(',')
        .filter((p) => p.trim())
        .map((p) => p.split('=').map((s) => s.trim())),
    )
  },
  z.record(z.string().regex(/^(\*|[a-z][a-z0-9_]*)$/, 'each entry must be dataset=days'), z.coerce.number().int().min(1).max(3660)),
)

/** `message-center-publish=0 * * * *; domain-posture=0 5 * * 1` (`;`-separated job=cron pairs); lib/jobs/schedule.ts checks the names and expressions at start-up. */
const jobSchedules = z.preprocess(
  (v) => {
    if (typeof v !== 'string' || v.trim() === '') return {}
    return Object.fromEntries(
      v
        .split(';')
        .filter((p) => p.trim())
        .map((p) => (p.includes('=') ? [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()] : [p.trim(), ''])),
    )
  },
  z.record(z.string(), z.string()),
)

/** PUBLIC_BASE_URL's default: a placeholder, not where any deployment is reached. */
const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:3000'

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** How long a SIGTERM/SIGINT lets in-flight requests finish before they are cut (under a platform's usual 30 s). */
  SHUTDOWN_GRACE_MS: int(25_000, 0, 600_000),
  /**
   * On SIGTERM/SIGINT, how long readiness answers 503 while the listener still accepts and answers,
   * so a load balancer's health check sees the drain before connections are refused. Unset: 0 on a
   * loopback HOST (nothing balances it), 5000 otherwise (readinessDelayMs).
   */
  SHUTDOWN_READINESS_DELAY_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(600_000).optional()),
  /** server.mjs's listen address and port, read here too: the readiness delay's default and the journal's instance name. */
  HOST: optionalString,
  PORT: int(3000, 0, 65_535),

  // OpenTelemetry (lib/telemetry): on when an OTLP endpoint is set. These decide whether the SDK is
  // loaded at all and which trace exporter it gets; the SDK reads every other OTEL_* variable itself
  // (service name, resource attributes, sampler, headers, batch and metric intervals).
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(emptyAsUndefined, z.enum(['http/protobuf', 'http/json', 'grpc']).default('http/protobuf')),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.preprocess(emptyAsUndefined, z.enum(['http/protobuf', 'http/json', 'grpc']).optional()),
  OTEL_SDK_DISABLED: bool(false),

  // Identity of the service (OpenAPI servers, contact, support objects)
  PUBLIC_BASE_URL: url(DEFAULT_PUBLIC_BASE_URL),
  DEV_BASE_URL: optionalUrl,
  SUPPORT_EMAIL: z.preprocess(emptyAsUndefined, z.email().default('support@example.com')),
  SUPPORT_URL: url('https://example.com/support'),

  // Request gate
  RATE_LIMIT_MAX: int(500, 1),
  RATE_LIMIT_WINDOW_S: int(30, 1),
  RATE_LIMIT_TIMEOUT_MS: int(200, 10, 10_000),
  /** Turns the limiter off (benchmarks, or a deployment that limits upstream); logged loudly. */
  RATE_LIMIT_DISABLED: bool(false),
  KV_REST_API_URL: optionalUrl,
  KV_REST_API_TOKEN: optionalString,
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  REDIS_URL: optionalUrl,
  TRUSTED_IP_HEADER: z.preprocess(
    (v) => (typeof v === 'string' ? emptyAsUndefined(v.toLowerCase()) : v),
    z.enum(['x-forwarded-for', 'forwarded', 'x-real-ip', 'cf-connecting-ip']).optional(),
  ),
  /** Addresses and CIDRs of the proxies in front (lib/http/client-ip.ts); requests from anywhere else have their forwarding headers ignored. */
  TRUSTED_PROXIES: list.pipe(
    z.array(
      z
        .string()
        .refine(
          (e) => ipaddr.IPv4.isValidFourPartDecimal(e) || ipaddr.IPv4.isValidCIDRFourPartDecimal(e) || ipaddr.IPv6.isValid(e) || ipaddr.IPv6.isValidCIDR(e),
          'each entry must be an address or a CIDR (10.0.0.0/8, 2001:db8::/32)',
        ),
    ),
  ),
  /** Health probes (/api/health) per client address and window, counted apart from RATE_LIMIT_MAX so a busy client never takes them down. */
  PROBE_RATE_LIMIT_MAX: int(600, 1),
  /** Query application requests per identity (or address) and window. */
  QUERY_RATE_LIMIT_MAX: int(600, 1),
  /** Wrong or missing secrets (cron, Logpush ingest) per client address and window; past it the address gets 429 whatever it sends. */
  AUTH_FAILURE_LIMIT_MAX: int(10, 1),
  INTERNAL_API_KEYS: list,

  // Upstream HTTP
  UPSTREAM_TIMEOUT_MS: int(5000, 100, 60_000),
  UPSTREAM_MAX_BYTES: int(5 * 1024 * 1024, 1024),
  UPSTREAM_RETRIES: int(2, 0, 5),
  IP_API_URL: url('http://ip-api.com'),
  IP_API_KEY: optionalString,
  IP_API_CACHE_TTL_S: int(3600, 0),
  DOH_URL: url('https://cloudflare-dns.com/dns-query'),
  APPLE_GDMF_URL: url('https://gdmf.apple.com/v2/pmv'),
  SOFA_FEED_URL: url('https://sofafeed.macadmins.io/v2'),
  MS_LOGIN_URL: url('https://login.microsoftonline.com'),
  MS_GRAPH_URL: url('https://graph.microsoft.com'),
  MS_TENANT_ID: optionalString,
  MS_CLIENT_ID: optionalString,
  MS_CLIENT_SECRET: optionalString,
  MTA_STS_URL_TEMPLATE: z.string().default('https://mta-sts.{domain}/.well-known/mta-sts.txt'),
  HOME_DDNS_HOSTNAME: optionalString,
  PLATFORM_DOMAINS: list,

  // Platform content
  PDS_URL: optionalUrl,
  PLC_URL: url('https://plc.directory'),
  BETTERSTACK_API_URL: url('https://uptime.betterstack.com/api/v2'),
  BETTERSTACK_API_TOKEN: optionalString,
  BETTERSTACK_MONITOR_ID: optionalString,
  GHOST_URL: optionalUrl,
  GHOST_CONTENT_API_KEY: optionalString,
  GHOST_ADMIN_API_KEY: optionalString,
  MESSAGE_CENTER_TAG: z.string().default('m365-message-center'),
  BOOKINGS_URL_TEMPLATE: z.string().default('https://outlook.office365.com/owa/calendar/{user}/bookings/'),
  BOOKINGS_USERS: list,

  // MCP tool server
  MCP_ALLOWED_ORIGINS: list.pipe(z.array(z.url({ protocol: /^https?$/ }))),

  // Query application
  QUERY_APP_HOST: optionalString,
  ACCESS_JWKS_URL: optionalUrl,
  /** Comma-separated: during an AUD tag rotation both the old and the new tag are accepted. */
  ACCESS_AUDIENCE: list,
  ACCESS_ISSUER: optionalString,
  ACCESS_ALLOWED_EMAILS: list.pipe(
    z.array(z.string().regex(/^([^@\s,]+@|@)[^@\s,]+\.[^@\s,]+$/, 'each entry must be an address (ana@example.com) or a domain (@example.com)')),
  ),
  DATABASE_URL: optionalString,
  /**
   * Where the query role reads (a read replica of DATABASE_URL, or a Neon read replica compute):
   * rows, counts, facets, group-by, dashboards, exports and the live tail. Writes, saved views,
   * history, jobs, ingest, the request log and migrations stay on DATABASE_URL. Unset: DATABASE_URL.
   */
  QUERY_DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL (postgres://user:pass@host:port/db)' }).optional(),
  ),
  /** Query pages say how far behind the data is once the replica's lag passes this many seconds. */
  QUERY_REPLICA_LAG_NOTE_S: int(5, 0, 86_400),
  PGLITE_DIR: z.string().default('.data/pglite'),
  QUERY_MAX_RANGE_DAYS: int(31, 1, 3660),
  QUERY_STATEMENT_TIMEOUT_MS: int(5000, 100, 120_000),
  /** Counts up to this many rows are exact; above it the planner's estimate is shown, marked as such. */
  QUERY_EXACT_COUNT_LIMIT: int(100_000, 1_000, 100_000_000),
  QUERY_RETENTION_DAYS: retention,
  /** Most rows one export (CSV or NDJSON) streams; the newest rows come first. */
  QUERY_EXPORT_MAX_ROWS: int(100_000, 1, 10_000_000),
  /** Demonstration rows per gateway dataset seeded at the embedded database's first start; 0: none. */
  QUERY_DEMO_ROWS: int(400, 0, 100_000),
  LOG_FULL_IP: bool(false),
  /** Where request-log entries wait while the database cannot take them; default: beside PGLITE_DIR. */
  REQUEST_LOG_SPOOL_DIR: optionalString,
  REQUEST_LOG_SPOOL_MAX_MB: int(64, 0, 1_000_000),
  /** This instance's journal subdirectory under REQUEST_LOG_SPOOL_DIR; default `<host name>-<PORT>`, which survives restarts. */
  REQUEST_LOG_INSTANCE: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, _ . - only')
      .optional(),
  ),
  LOGPUSH_SECRET: optionalString,
  /** Past this, an ingest batch whose database does not answer gets 503 + Retry-After. */
  INGEST_DB_TIMEOUT_MS: int(15_000, 100, 120_000),

  // Scheduled operator jobs (lib/jobs)
  /** Bearer secret of the cron routes (/api/cron/<job>); unset, they refuse every call. Vercel sends it. */
  CRON_SECRET: optionalString,
  /** When each job is due (cron, UTC), for the health report; vercel.json holds Vercel's copy. */
  JOB_SCHEDULES: jobSchedules,
  /** How late past its due time a job may succeed before /api/health flags it overdue. */
  JOB_OVERDUE_GRACE_S: int(900, 0, 7 * 86_400),

  // Alerts (lib/alerts): saved views' conditions and domain-posture changes, sent to one webhook
  /** Where alert notifications are POSTed; unset, alerts are still recorded (delivery `disabled`). */
  ALERT_WEBHOOK_URL: optionalUrl,
  /** The channel that shapes the body: json (generic), slack ({"text", "blocks"}), or auto (slack for a hooks.slack.com URL); lib/alerts/channels checks the name at start-up. */
  ALERT_WEBHOOK_FORMAT: z.preprocess(emptyAsUndefined, z.string().default('auto')),
  /** After a notification of an alert, further changes of the same alert within this many seconds are recorded but not sent. */
  ALERT_COOLDOWN_S: int(1800, 0, 7 * 86_400),
  /** Attempts per notification within one run (with backoff); what is still undelivered is retried on the next run. */
  ALERT_DELIVERY_ATTEMPTS: int(3, 1, 10),
  /** Time one alerts run may spend delivering notifications, retries included. */
  ALERT_DELIVERY_BUDGET_MS: int(60_000, 1000, 280_000),
})

export type Config = z.infer<typeof EnvSchema>

/** The shortest secret a role accepts: 32 characters, e.g. `openssl rand -hex 32` gives 64. */
export const MIN_SECRET_LENGTH = 32

/**
 * The secrets that admit a caller to one role each. Each must be long enough not to be guessed and
 * differ from every other, so that one role's secret (a scheduler's, a log shipper's) never opens
 * another role's route.
 */
function secretProblems(c: Config): { variable: string; message: string }[] {
  const secrets = [
    ...c.INTERNAL_API_KEYS.map((value, i) => ({
      variable: 'INTERNAL_API_KEYS',
      name: c.INTERNAL_API_KEYS.length > 1 ? `INTERNAL_API_KEYS (entry ${i + 1})` : 'INTERNAL_API_KEYS',
      value,
    })),
    ...(c.CRON_SECRET ? [{ variable: 'CRON_SECRET', name: 'CRON_SECRET', value: c.CRON_SECRET }] : []),
    ...(c.LOGPUSH_SECRET ? [{ variable: 'LOGPUSH_SECRET', name: 'LOGPUSH_SECRET', value: c.LOGPUSH_SECRET }] : []),
  ]
  const problems: { variable: string; message: string }[] = []
  for (const s of secrets)
    if (s.value.length < MIN_SECRET_LENGTH)
      problems.push({
        variable: s.variable,
        message: `${s.name} is ${s.value.length} characters long; a secret needs at least ${MIN_SECRET_LENGTH} (generate one with: openssl rand -hex 32).`,
      })
  for (let i = 0; i < secrets.length; i++)
    for (let j = i + 1; j < secrets.length; j++)
      if (secrets[i].value === secrets[j].value)
        problems.push({
          variable: secrets[j].variable,
          message: `${secrets[i].name} and ${secrets[j].name} are the same secret; each role needs its own, so that one role's secret never opens another's routes.`,
        })
  return problems
}

const CheckedEnvSchema = EnvSchema.superRefine((c, ctx) => {
  for (const p of secretProblems(c)) ctx.addIssue({ code: 'custom', path: [p.variable], message: p.message })
  if (c.TRUSTED_PROXIES.length > 0 && !c.TRUSTED_IP_HEADER)
    ctx.addIssue({
      code: 'custom',
      path: ['TRUSTED_PROXIES'],
      message:
        'TRUSTED_PROXIES is set but TRUSTED_IP_HEADER is not: name the header those proxies set (x-forwarded-for, forwarded, x-real-ip or cf-connecting-ip).',
    })
  if (c.QUERY_DATABASE_URL && !c.DATABASE_URL)
    ctx.addIssue({
      code: 'custom',
      path: ['QUERY_DATABASE_URL'],
      message: 'QUERY_DATABASE_URL is set but DATABASE_URL is not: the query replica is a copy of the Postgres at DATABASE_URL, which the writes need.',
    })
})

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = CheckedEnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  return Object.freeze(parsed.data)
}

/** Names of every variable the service reads (used by the documentation test). */
export const configKeys = Object.keys(EnvSchema.shape) as (keyof Config)[]

export const config: Config = loadConfig(process.env)

const LOOPBACK_HOST = /^(localhost|127\.[0-9.]+|::1|\[::1\])$/

/** The readiness delay of a SIGTERM: as configured, else none on a loopback HOST (the default) and 5 s on any other. */
export function readinessDelayMs(c: Pick<Config, 'SHUTDOWN_READINESS_DELAY_MS' | 'HOST'> = config): number {
  return c.SHUTDOWN_READINESS_DELAY_MS ?? (LOOPBACK_HOST.test(c.HOST ?? '127.0.0.1') ? 0 : 5000)
}

/** Whether OpenTelemetry is on: an OTLP endpoint is set and the SDK is not disabled. */
export function telemetryEnabled(c: Config = config): boolean {
  return !c.OTEL_SDK_DISABLED && !!(c.OTEL_EXPORTER_OTLP_ENDPOINT || c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
}

/** Which rate-limit store the configuration selects. */
/** True when PUBLIC_BASE_URL names the deployment's origin (set, and not the placeholder default). */
export function publicBaseUrlConfigured(c: Pick<Config, 'PUBLIC_BASE_URL'> = config): boolean {
  return new URL(c.PUBLIC_BASE_URL).origin !== new URL(DEFAULT_PUBLIC_BASE_URL).origin
}

export function rateLimitStoreKind(c: Config = config): 'upstash' | 'redis' | 'memory' {
  if ((c.KV_REST_API_URL && c.KV_REST_API_TOKEN) || (c.UPSTASH_REDIS_REST_URL && c.UPSTASH_REDIS_REST_TOKEN)) return 'upstash'
  if (c.REDIS_URL) return 'redis'
  return 'memory'
}

import 'server-only'

// Process start-up, imported once by instrumentation.ts on the Node.js runtime. Subsystems that
// need a start (database migrations, the request-log writer, partition maintenance) add their
// call to startServices().

/** How often the server runs the partition-maintenance job itself. */
const PARTITION_MAINTENANCE_MS = 60 * 60 * 1000

async function startServices() {
  const { config, publicBaseUrlConfigured, rateLimitStoreKind, readinessDelayMs } = await import('@/lib/config')
  const { log } = await import('@/lib/log')
  const { getLimiter } = await import('@/lib/ratelimit/limiter')
  // OpenTelemetry before anything else, so that the first request is traced; without an OTLP
  // endpoint the SDK is never loaded.
  const { telemetryOn, observeGauge } = await import('@/lib/telemetry/telemetry')
  const { onShutdown, setShutdownSettings } = await import('@/lib/shutdown')
  const { processSlot } = await import('@/lib/process-slot')
  if (telemetryOn) {
    const { startTelemetry } = await import('@/lib/telemetry/sdk')
    // Database statements and upstream attempts are measured through lib/log.ts's hook.
    const { measured } = await import('@/lib/telemetry/telemetry')
    const { setMeasurer } = await import('@/lib/log')
    setMeasurer(measured)
    // On SIGTERM/SIGINT, after the in-flight requests: their spans and the last metrics are exported.
    onShutdown(await startTelemetry())
    // server.mjs runs each request in its server span through this.
    const { serveTraced } = await import('@/lib/gate/server-span')
    processSlot('telemetry-serve').set(serveTraced)
  }
  log.info('configuration loaded', {
    rateLimitStore: rateLimitStoreKind(config),
    internalKeys: config.INTERNAL_API_KEYS.length,
    trustedIpHeader: config.TRUSTED_IP_HEADER ?? null,
    trustedProxies: config.TRUSTED_PROXIES.length,
  })
  getLimiter()
  // A second process on the embedded database's directory stops here, before it listens; so does
  // a directory other users can write (lib/db/private-directory.ts).
  if (!config.DATABASE_URL && !config.PGLITE_DIR.startsWith('memory://')) {
    const { lockDirectory } = await import('@/lib/db/directory-lock')
    lockDirectory(config.PGLITE_DIR)
    const { ensurePrivateDirectory } = await import('@/lib/db/private-directory')
    ensurePrivateDirectory(config.PGLITE_DIR)
  }
  // Settings that name datasets, jobs or alert channels are checked by their rooms; a bad name stops start-up.
  const { checkRetentionSetting } = await import('@/lib/datasets/partitions')
  checkRetentionSetting(config)
  const { jobSchedules } = await import('@/lib/jobs/schedule')
  jobSchedules(config.JOB_SCHEDULES)
  // Alert notifications link to this service; without its public origin they can only say localhost.
  if (config.ALERT_WEBHOOK_URL && !publicBaseUrlConfigured(config))
    log.warn(`PUBLIC_BASE_URL is not set: alert notifications will link to ${new URL(config.PUBLIC_BASE_URL).origin}; set it to this service's public origin`)
  const { checkAlertChannelSetting } = await import('@/lib/alerts/channels')
  checkAlertChannelSetting(config)
  // What server.mjs prints at start: the surfaces' addresses and what the process runs on.
  const { describeTarget } = await import('@/lib/db/client')
  const { accessMode } = await import('@/lib/access/policy')
  const { describeRequestLog } = await import('@/lib/request-log/writer')
  const secrets = (
    [
      ['INTERNAL_API_KEYS', config.INTERNAL_API_KEYS.length > 0],
      ['LOGPUSH_SECRET', !!config.LOGPUSH_SECRET],
      ['access policy', accessMode(config).kind === 'verify'],
      ['MS_CLIENT_SECRET', !!config.MS_CLIENT_SECRET],
      ['GHOST_ADMIN_API_KEY', !!config.GHOST_ADMIN_API_KEY],
    ] as const
  ).flatMap(([name, set]) => (set ? [name] : []))
  const store = rateLimitStoreKind(config)
  processSlot<() => unknown>('startup-summary').set(() => ({
    database: config.DATABASE_URL
      ? `${describeTarget(config)}${config.QUERY_DATABASE_URL ? `; queries read the replica ${describeTarget({ ...config, DATABASE_URL: config.QUERY_DATABASE_URL })} (QUERY_DATABASE_URL)` : ''}`
      : `${describeTarget(config)} (embedded PGlite; set DATABASE_URL for a Postgres server)`,
    rateLimit: store === 'memory' ? 'in memory, this process only (set REDIS_URL or Upstash for several instances)' : store,
    secrets,
    access: accessMode(config).kind,
    requestLog: describeRequestLog(),
  }))
  // What server.mjs needs from the application: each request's body limit and the grace period.
  const { addBodyLimitRule, registerBodyLimit } = await import('@/lib/gate/body-limit')
  const { ingestBodyLimit } = await import('@/lib/ingest/secret')
  addBodyLimitRule(ingestBodyLimit)
  registerBodyLimit()
  setShutdownSettings({ graceMs: config.SHUTDOWN_GRACE_MS, readinessDelayMs: readinessDelayMs() })

  // Query application data: migrate (idempotent), then record requests. A database that is down
  // at start does not stop the API; it is retried on first use and shows in /api/health. The
  // embedded PGlite opens here too, before the first request: it runs on this thread, and opening
  // it (migrations, a first start's demo rows) on a request's path stalled every other request for
  // seconds.
  const { getReadyDatabase, onDatabaseReady } = await import('@/lib/db/client')
  // The embedded database's first start gets the demonstration rows (lib/datasets/demo.ts).
  // Today's and the next days' partitions exist before the first row arrives.
  onDatabaseReady(async (database) => {
    const { maintainPartitions } = await import('@/lib/datasets/partitions')
    await maintainPartitions(database.db)
  })
  onDatabaseReady(async (database, { firstStart }) => {
    const rows = database.driver === 'pglite' ? config.QUERY_DEMO_ROWS : 0
    if (!firstStart || rows === 0) return
    const { seedDemoRows } = await import('@/lib/datasets/demo')
    const t0 = performance.now()
    await seedDemoRows(database, rows)
    log.info('demo rows seeded into the embedded database (remove them: npm run db:seed -- --remove-demo)', {
      rowsPerDataset: rows,
      ms: Math.round(performance.now() - t0),
    })
  })
  const { requestLogWriter, startRequestLog } = await import('@/lib/request-log/writer')
  // The request log first: its journal needs no database, so requests answered while the database
  // opens (or is down) are recorded too.
  startRequestLog()
  // Its lag as a metric (nothing happens with telemetry off).
  observeGauge('utility_api.request_log.lag', 's', 'Age of the oldest request-log entry not yet stored in the database', () => {
    const status = requestLogWriter()?.status()
    return status && status.shipper.lagMs / 1000
  })
  try {
    const database = await getReadyDatabase()
    log.info('database ready', {
      driver: database.driver,
      target: describeTarget(config),
      ...(database.replica ? { queryReplica: `${database.replica.driver} ${database.replica.target}` } : {}),
    })
  } catch (error) {
    log.error('database unavailable at start-up; migrations will be retried on first use', {
      target: describeTarget(config),
      error: error instanceof Error ? error.message : String(error),
    })
  }
  // Partition maintenance (days ahead, the default partitions drained, expired days dropped) runs
  // as its job, with the job's lock and history: every hour in this process, so a server without
  // an external scheduler keeps its partitions and retention.
  const { runJob } = await import('@/lib/jobs/run')
  setInterval(() => void runJob('partition-maintenance', { trigger: 'timer' }), PARTITION_MAINTENANCE_MS).unref()
}

try {
  await startServices()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}

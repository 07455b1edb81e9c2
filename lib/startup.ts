import 'server-only'

// Process start-up, imported once by instrumentation.ts on the Node.js runtime. Subsystems that
// need a start (database migrations, the request-log writer, partition maintenance) add their
// call to startServices().

async function startServices() {
  const { config, rateLimitStoreKind } = await import('@/lib/config')
  const { log } = await import('@/lib/log')
  const { getLimiter } = await import('@/lib/ratelimit/limiter')
  log.info('configuration loaded', {
    rateLimitStore: rateLimitStoreKind(config),
    internalKeys: config.INTERNAL_API_KEYS.length,
    trustedIpHeader: config.TRUSTED_IP_HEADER ?? null,
  })
  getLimiter()
  // What server.mjs prints at start: the surfaces' addresses and what the process runs on.
  const { describeTarget } = await import('@/lib/db/client')
  const { accessMode } = await import('@/lib/access/policy')
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
  ;(globalThis as Record<symbol, unknown>)[Symbol.for('utility-api.startup-summary')] = () => ({
    database: config.DATABASE_URL ? describeTarget(config) : `${describeTarget(config)} (embedded PGlite; set DATABASE_URL for a Postgres server)`,
    rateLimit: store === 'memory' ? 'in memory, this process only (set REDIS_URL or Upstash for several instances)' : store,
    secrets,
    access: accessMode(config).kind,
  })
  // What server.mjs needs from the application: each request's body limit and the grace period.
  const { registerBodyLimit } = await import('@/lib/http/body-limit')
  const { setShutdownSettings } = await import('@/lib/shutdown')
  registerBodyLimit()
  setShutdownSettings({ graceMs: config.SHUTDOWN_GRACE_MS })

  // Query application data: migrate (idempotent), then record requests. A database that is down
  // at start does not stop the API; it is retried on first use and shows in /api/health. The
  // embedded PGlite opens here too, before the first request: it runs on this thread, and opening
  // it (migrations, a first start's demo rows) on a request's path stalled every other request for
  // seconds.
  const { getReadyDatabase } = await import('@/lib/db/client')
  const { startRequestLog } = await import('@/lib/query/request-log-writer')
  const { startPartitionMaintenance } = await import('@/lib/query/partitions')
  try {
    const database = await getReadyDatabase()
    log.info('database ready', { driver: database.driver, target: describeTarget(config) })
  } catch (error) {
    log.error('database unavailable at start-up; migrations will be retried on first use', {
      target: describeTarget(config),
      error: error instanceof Error ? error.message : String(error),
    })
  }
  startRequestLog()
  // Day partitions ahead of time, the default partitions drained, expired days dropped.
  startPartitionMaintenance(async () => (await getReadyDatabase()).db)
}

try {
  await startServices()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}

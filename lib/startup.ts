import 'server-only'

// Process start-up, imported once by instrumentation.ts on the Node.js runtime. Subsystems that
// need a start (database migrations, the request-log writer) add their call to startServices().

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
}

try {
  await startServices()
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}

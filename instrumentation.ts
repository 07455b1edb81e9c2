// Runs once when the server starts. Loading the config validates every variable, so a bad value
// stops start-up with a message naming it. With an OTLP endpoint set, the OpenTelemetry SDK starts
// first (lib/telemetry/sdk.ts), so that the first request is traced; without one it is never loaded.
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { telemetryEnabled } = await import('@/lib/config')
  if (telemetryEnabled()) {
    // Upstream calls get our own client spans (lib/upstream/http.ts), whose URL carries no query
    // values; Next's fetch spans would repeat them with the full URL.
    process.env.NEXT_OTEL_FETCH_DISABLED ??= '1'
    const { startTelemetry } = await import('@/lib/telemetry/sdk')
    const { processSlot } = await import('@/lib/process-slot')
    processSlot<() => Promise<void>>('telemetry-shutdown').set(await startTelemetry())
    // server.mjs runs each request in its server span through this.
    const { serveTraced } = await import('@/lib/gate/server-span')
    processSlot('telemetry-serve').set(serveTraced)
  }
  await import('@/lib/startup')
}

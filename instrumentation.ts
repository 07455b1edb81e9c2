// Runs once when the server starts. Loading the config validates every variable, so a bad value
// stops start-up with a message naming it (lib/startup.ts, which also starts OpenTelemetry when an
// OTLP endpoint is set).
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  // Upstream calls get our own client spans (lib/upstream/http.ts), whose URL carries no query
  // values; Next's fetch spans would repeat them with the full URL. (With telemetry off, neither exists.)
  process.env.NEXT_OTEL_FETCH_DISABLED ??= '1'
  await import('@/lib/startup')
}

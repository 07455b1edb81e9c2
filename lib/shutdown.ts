// Work to finish before the process exits (server.mjs runs these on SIGTERM/SIGINT).
const SLOT = Symbol.for('utility-api.shutdown-hooks')

export function onShutdown(hook: () => Promise<void> | void) {
  const slot = globalThis as unknown as Record<symbol, Array<() => Promise<void> | void>>
  ;(slot[SLOT] ??= []).push(hook)
}

// Work to finish before the process exits. server.mjs runs the hooks on SIGTERM/SIGINT once the
// in-flight requests are done, and the urgent variants (synchronous) when a second signal asks it
// to exit at once. The settings come from lib/config.ts, the only reader of the environment.
const HOOKS = Symbol.for('utility-api.shutdown-hooks')
const URGENT = Symbol.for('utility-api.shutdown-urgent-hooks')
const SETTINGS = Symbol.for('utility-api.shutdown-settings')

type Slot = Record<symbol, unknown>

export function onShutdown(hook: () => Promise<void> | void, urgent?: () => void) {
  const slot = globalThis as unknown as Slot
  ;((slot[HOOKS] ??= []) as Array<typeof hook>).push(hook)
  if (urgent) ((slot[URGENT] ??= []) as Array<typeof urgent>).push(urgent)
}

/** What server.mjs reads when it drains: the grace period for in-flight requests. */
export function setShutdownSettings(settings: { graceMs: number }) {
  ;(globalThis as unknown as Slot)[SETTINGS] = settings
}

/** True once server.mjs has started draining (readiness answers 503 from then on). */
export function isDraining(): boolean {
  return (globalThis as unknown as Slot)[Symbol.for('utility-api.draining')] === true
}

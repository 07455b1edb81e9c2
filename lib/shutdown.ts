// Work to finish before the process exits. server.mjs runs the hooks on SIGTERM/SIGINT once the
// in-flight requests are done, and the urgent variants (synchronous) when a second signal asks it
// to exit at once. The settings come from lib/config.ts, the only reader of the environment.
// server.mjs reads and sets these slots by their names.
import { processSlot } from '@/lib/process-slot'

const hooks = processSlot<Array<() => Promise<void> | void>>('shutdown-hooks')
const urgentHooks = processSlot<Array<() => void>>('shutdown-urgent-hooks')
const settingsSlot = processSlot<{ graceMs: number }>('shutdown-settings')
const draining = processSlot<boolean>('draining')

export function onShutdown(hook: () => Promise<void> | void, urgent?: () => void) {
  hooks.getOrCreate(() => []).push(hook)
  if (urgent) urgentHooks.getOrCreate(() => []).push(urgent)
}

/** What server.mjs reads when it drains: the grace period for in-flight requests. */
export function setShutdownSettings(settings: { graceMs: number }) {
  settingsSlot.set(settings)
}

/** True once server.mjs has started draining (readiness answers 503 from then on). */
export function isDraining(): boolean {
  return draining.get() === true
}

// Work to finish before the process exits. server.mjs runs the hooks on SIGTERM/SIGINT once the
// in-flight requests are done, and the urgent variants (synchronous) when a second signal asks it
// to exit at once. The settings come from lib/config.ts, the only reader of the environment.
// server.mjs reads and sets these slots by their names.
import { processSlot } from '@/lib/process-slot'

const hooks = processSlot<Array<() => Promise<void> | void>>('shutdown-hooks')
const urgentHooks = processSlot<Array<() => void>>('shutdown-urgent-hooks')
const settingsSlot = processSlot<ShutdownSettings>('shutdown-settings')
const draining = processSlot<boolean>('draining')

export function onShutdown(hook: () => Promise<void> | void, urgent?: () => void) {
  hooks.getOrCreate(() => []).push(hook)
  if (urgent) urgentHooks.getOrCreate(() => []).push(urgent)
}

interface ShutdownSettings {
  /** How long in-flight requests may finish once the listener is closed. */
  graceMs: number
  /** Before that, how long readiness answers 503 while the listener still accepts and answers. */
  readinessDelayMs: number
}

/** What server.mjs reads when it drains. */
export function setShutdownSettings(settings: ShutdownSettings) {
  settingsSlot.set(settings)
}

/** True from the signal on (readiness answers 503), through the readiness delay and the drain. */
export function isDraining(): boolean {
  return draining.get() === true
}

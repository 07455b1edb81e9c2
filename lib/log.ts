import { config } from '@/lib/config'
import { processSlot } from '@/lib/process-slot'

// One JSON line per event on stdout/stderr; platforms (Vercel, systemd, Docker) collect these.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const
type Level = keyof typeof LEVELS

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (LEVELS[level] < LEVELS[config.LOG_LEVEL]) return
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })
  if (level === 'error' || level === 'warn') console.error(line)
  else console.log(line)
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
}

const loggedOnce = processSlot<Set<string>>('log-once')

/** Once-per-process log lines (start-up notices) even though several bundles load this module. */
export function logOnce(key: string, level: Level, msg: string, fields?: Record<string, unknown>) {
  const seen = loggedOnce.getOrCreate(() => new Set())
  if (seen.has(key)) return
  seen.add(key)
  write(level, msg, fields)
}

/**
 * An operation worth a span and a duration metric (a database statement, an upstream attempt),
 * described by the infrastructure that runs it; what records it (lib/telemetry, when OpenTelemetry
 * is on) registers itself here at start-up, so the lower layers never import it.
 */
type MeasureAttributes = Record<string, string | number | boolean | undefined>

export interface MeasuredOperation<T> {
  name: string
  kind: 'client' | 'internal'
  attributes: MeasureAttributes
  /** The duration histogram, its description and the attribute keys it is recorded with. */
  metric: { name: string; description: string; keys: readonly string[] }
  /** Attributes learned from the result (a status code). */
  outcome?: (result: T) => MeasureAttributes
  /** Attributes of a failure (`error.type` has a default). */
  failure?: (error: unknown) => MeasureAttributes
}
type Measurer = <T>(op: MeasuredOperation<T>, fn: () => Promise<T>) => Promise<T>

const measurer = processSlot<Measurer>('measurer')

/** Registers what records measured operations (lib/startup.ts, with OpenTelemetry on). */
export const setMeasurer = (record: Measurer) => measurer.set(record)

/** Whether anything records measured operations: callers skip work only it would read. */
export const measuring = (): boolean => measurer.get() !== undefined

/** Runs `fn`, in a span with its duration recorded when something measures operations. */
export function measure<T>(op: MeasuredOperation<T>, fn: () => Promise<T>): Promise<T> {
  const record = measurer.get()
  return record ? record(op, fn) : fn()
}

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

// Five-field cron expressions (minute hour day-of-month month day-of-week, UTC), as Vercel Cron
// and crontab read them: numbers, `*`, ranges `a-b`, steps `*/n` and `a-b/n`, lists `a,b`. Enough
// to say when a job was next due after a given time, for the health report's "overdue" flag.

const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const

export interface CronSchedule {
  expression: string
  minutes: Set<number>
  hours: Set<number>
  days: Set<number>
  months: Set<number>
  weekdays: Set<number>
  /** Whether day of month / day of week were restricted (cron ORs them when both are). */
  daysRestricted: boolean
  weekdaysRestricted: boolean
}

function parseField(text: string, field: (typeof FIELDS)[number]): Set<number> {
  const out = new Set<number>()
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part)
    if (!m) throw new Error(`${field.name}: "${part}" is not a number, range, step or *`)
    const from = m[1] === '*' ? field.min : Number(m[2])
    const to = m[1] === '*' ? field.max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? field.max : from
    const step = m[4] !== undefined ? Number(m[4]) : 1
    if (from < field.min || to > field.max || from > to || step < 1) throw new Error(`${field.name}: "${part}" is outside ${field.min}-${field.max}`)
    for (let v = from; v <= to; v += step) out.add(field.name === 'day of week' && v === 7 ? 0 : v)
  }
  return out
}

/** Parses an expression; throws an Error naming the bad field. */
export function parseCron(expression: string): CronSchedule {
  const parts = expression.trim().split(/\s+/)
  if (parts.length !== 5) throw new Error(`"${expression}" needs five fields (minute hour day-of-month month day-of-week)`)
  const [minutes, hours, days, months, weekdays] = parts.map((p, i) => parseField(p, FIELDS[i]))
  return { expression, minutes, hours, days, months, weekdays, daysRestricted: parts[2] !== '*', weekdaysRestricted: parts[4] !== '*' }
}

const MINUTE_MS = 60_000

function matches(s: CronSchedule, t: Date): boolean {
  if (!s.minutes.has(t.getUTCMinutes()) || !s.hours.has(t.getUTCHours()) || !s.months.has(t.getUTCMonth() + 1)) return false
  const day = s.days.has(t.getUTCDate())
  const weekday = s.weekdays.has(t.getUTCDay())
  if (s.daysRestricted && s.weekdaysRestricted) return day || weekday
  return day && weekday
}

/** The first time strictly after `after` at which the schedule fires; null if none within ~4 years. */
export function nextRun(s: CronSchedule, after: Date): Date | null {
  let t = Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS
  // Whole days that cannot match are skipped, so even a yearly schedule takes a few thousand steps.
  for (const end = t + 4 * 366 * 86_400_000; t < end; ) {
    const d = new Date(t)
    const dayOk = s.months.has(d.getUTCMonth() + 1) && (s.daysRestricted && s.weekdaysRestricted ? s.days.has(d.getUTCDate()) || s.weekdays.has(d.getUTCDay()) : s.days.has(d.getUTCDate()) && s.weekdays.has(d.getUTCDay()))
    if (!dayOk) {
      t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
      continue
    }
    if (matches(s, d)) return d
    t += MINUTE_MS
  }
  return null
}

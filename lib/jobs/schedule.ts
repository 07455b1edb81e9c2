import { CronExpressionParser } from 'cron-parser'

// Five-field cron expressions (minute hour day-of-month month day-of-week, UTC), as Vercel Cron
// and crontab read them, parsed by cron-parser. Enough to say when a job was next due after a
// given time, for the health report's "overdue" flag.

export interface CronSchedule {
  expression: string
}

const FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week']

/** Checks an expression; throws an Error naming the field that is wrong. */
export function parseCron(expression: string): CronSchedule {
  const fields = expression.trim().split(/\s+/)
  // cron-parser also reads a leading seconds field; Vercel and crontab do not.
  if (fields.length !== 5) throw new Error(`"${expression}" needs five fields (${FIELDS.join(', ')})`)
  // One field at a time, the others `*`, so the message can name the field.
  fields.forEach((field, i) => {
    try {
      CronExpressionParser.parse(fields.map((f, j) => (j === i ? f : '*')).join(' '), { tz: 'UTC' })
    } catch (error) {
      throw new Error(`"${expression}": ${FIELDS[i]} "${field}": ${error instanceof Error ? error.message : String(error)}`)
    }
  })
  return { expression }
}

/** The first time strictly after `after` at which the schedule fires; null if there is none. */
export function nextRun(schedule: CronSchedule, after: Date): Date | null {
  try {
    return CronExpressionParser.parse(schedule.expression, { currentDate: after, tz: 'UTC' }).next().toDate()
  } catch {
    return null
  }
}

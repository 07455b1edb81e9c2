import { CronExpressionParser } from 'cron-parser'
import { config } from '@/lib/config'
import { DEFAULT_JOB_SCHEDULES, isJobName, JOB_NAMES, type JobName } from '@/lib/jobs/names'

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

/**
 * The schedules in force: JOB_SCHEDULES over the defaults. Config keeps the setting as a plain map;
 * the names and expressions are checked here, at start-up, and an error names the variable.
 */
export function jobSchedules(given: Record<string, string> = config.JOB_SCHEDULES): Record<JobName, string> {
  const problems = Object.entries(given).flatMap(([name, expression]) => {
    if (!isJobName(name)) return [`${name}: each entry must be job=cron expression with a job among ${JOB_NAMES.join(', ')}`]
    try {
      parseCron(expression)
      return []
    } catch (error) {
      return [`${name}: ${error instanceof Error ? error.message : String(error)}`]
    }
  })
  if (problems.length) throw new Error(`JOB_SCHEDULES: ${problems.join('; ')}`)
  return { ...DEFAULT_JOB_SCHEDULES, ...given }
}

// The scheduled operator jobs and their default schedules (five-field cron, UTC). Pure data:
// lib/jobs/schedule.ts lays JOB_SCHEDULES over these defaults, and vercel.json lists the same schedules (a unit
// test keeps the two in step).

export const JOB_NAMES = ['message-center-publish', 'message-center-dedupe', 'domain-posture', 'partition-maintenance', 'alerts'] as const
export type JobName = (typeof JOB_NAMES)[number]

export const DEFAULT_JOB_SCHEDULES: Readonly<Record<JobName, string>> = {
  // New Message Center posts reach the blog within the hour.
  'message-center-publish': '15 * * * *',
  // Duplicates only appear when two publishers raced; once a day deletes them.
  'message-center-dedupe': '45 3 * * *',
  'domain-posture': '0 6 * * *',
  // Day partitions are created three days ahead, so a daily run always keeps ahead.
  'partition-maintenance': '30 0 * * *',
  // Saved views' conditions are evaluated over windows of minutes; undelivered notifications are retried each run.
  alerts: '*/5 * * * *',
}

/** Where the cron routes live: /api/cron/<job>. The API gate answers them without CORS and to GET only. */
export const CRON_PATH_PREFIX = '/api/cron/'

export const isJobName = (name: string): name is JobName => (JOB_NAMES as readonly string[]).includes(name)

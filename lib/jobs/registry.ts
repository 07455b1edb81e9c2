import 'server-only'
import { runAlerts } from '@/lib/alerts/job'
import type { Database, Db } from '@/lib/db/client'
import { runDomainPosture } from '@/lib/jobs/domain-posture'
import type { JobName } from '@/lib/jobs/names'
import { deduplicate, publish } from '@/lib/office/service'
import { runPartitionMaintenance } from '@/lib/datasets/partitions'

// The scheduled operator jobs. Each one calls the same service function as its internal HTTP
// operation (lib/office/service.ts for the Message Center jobs), so the cron routes, the command
// line and the HTTP operations cannot drift apart. A job returns what it did; lib/jobs/run.ts adds
// the lock, the history row and the error handling around it.

export interface JobContext {
  db: Db
  /** The database itself, for jobs that read through the query engine's read-only sessions. */
  database: Database
  dryRun: boolean
  /** Most Message Center posts one publishing run creates (the HTTP operation's `limit`). */
  limit?: number
}

export interface JobReport {
  /** One line saying what the run did. */
  summary: string
  counts: Record<string, number>
  /** Set when the run completed but part of it failed (a post not created, a domain not checked). */
  failure?: string
  /** The service's own answer (what the HTTP operation returns). */
  report?: unknown
}

export interface JobDefinition {
  name: JobName
  description: string
  run(ctx: JobContext): Promise<JobReport>
}

export const PUBLISH_LIMIT = 50

export const JOBS: Readonly<Record<JobName, JobDefinition>> = {
  'message-center-publish': {
    name: 'message-center-publish',
    description: 'Publishes new Microsoft 365 Message Center posts to the blog (POST /api/office/messagecenter/publish).',
    async run({ dryRun, limit }) {
      const report = await publish({ dryRun, limit: limit ?? PUBLISH_LIMIT })
      const { scanned, published, skipped, failed, pending } = report
      return {
        summary: report.message,
        counts: { scanned, published, skipped, failed, pending },
        failure: failed ? `${failed} post${failed === 1 ? '' : 's'} not created` : undefined,
        report,
      }
    },
  },
  'message-center-dedupe': {
    name: 'message-center-dedupe',
    description: 'Deletes duplicate Message Center posts from the blog (POST /api/office/messagecenter/deduplicate).',
    async run({ dryRun }) {
      const report = await deduplicate(dryRun)
      const { scanned, duplicatesFound, deleted, failed } = report
      return {
        summary: report.message,
        counts: { scanned, duplicatesFound, deleted, failed },
        failure: failed ? `${failed} duplicate${failed === 1 ? '' : 's'} not deleted` : undefined,
        report,
      }
    },
  },
  'domain-posture': {
    name: 'domain-posture',
    description: 'Runs the graded mail and DNS check of every platform domain and keeps the results in domain_checks.',
    async run({ db, dryRun }) {
      const result = await runDomainPosture(db, { dryRun })
      return {
        summary: result.summary,
        counts: result.counts,
        failure: result.errors.length ? `not checked: ${result.errors.join('; ')}` : undefined,
        report: { ...result, rows: result.rows.length },
      }
    },
  },
  'partition-maintenance': {
    name: 'partition-maintenance',
    description: 'Creates the day partitions of every dataset ahead of time, drains default partitions and drops days past retention.',
    async run({ db, dryRun }) {
      if (dryRun) return { summary: 'Dry run: no partition created or dropped.', counts: {} }
      const result = await runPartitionMaintenance(db)
      const counts = { created: result.created.length, drained: result.drained, dropped: result.dropped.length }
      return {
        summary: `Created ${counts.created} partitions, moved ${counts.drained} rows out of default partitions, dropped ${counts.dropped} expired partitions.`,
        counts,
        report: result,
      }
    },
  },
  alerts: {
    name: 'alerts',
    description:
      'Evaluates the condition of every saved view that has one, records firings and resolutions in the alerts dataset and sends what is pending (posture changes included) to ALERT_WEBHOOK_URL.',
    async run({ database, dryRun }) {
      const result = await runAlerts(database, { dryRun })
      const failure = [
        result.errors.length ? `not evaluated: ${result.errors.join('; ')}` : '',
        result.counts.failed ? `${result.counts.failed} notification${result.counts.failed === 1 ? '' : 's'} not delivered (kept pending)` : '',
      ]
        .filter(Boolean)
        .join('; ')
      return { summary: result.summary, counts: result.counts, failure: failure || undefined, report: result }
    },
  },
}

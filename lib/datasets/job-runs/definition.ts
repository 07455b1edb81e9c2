import { breakdown, c, countOverTime, demo, type DatasetDef } from '@/lib/datasets/types'

export const definition: DatasetDef = {
  id: 'job_runs',
  label: 'Job runs',
  description:
    'Scheduled operator jobs (lib/jobs): one row per run, whether started by a cron route, the command line (npm run job) or an internal HTTP operation, written as `running` when the run starts and completed when it ends. `skipped` means another run of the same job held the lock; `abandoned`, that the process running it died.',
  table: 'job_runs',
  timeColumn: 'started_at',
  columns: [
    c('started_at', 'timestamp', 'When the run started (UTC).'),
    c('ended_at', 'timestamp', 'When the run ended (UTC); empty while running and for an abandoned run.'),
    c('job', 'text', 'Job name (message-center-publish, message-center-dedupe, domain-posture, partition-maintenance, alerts).'),
    c('trigger', 'text', "What started it: cron (a cron route), cli (npm run job), http (an internal operation) or timer (the server's own hourly run)."),
    c('outcome', 'text', 'succeeded, failed, skipped (already running elsewhere), dry-run, running, or abandoned (the process running it died).'),
    // The error next to the outcome, where a failed run is read: not last, past the screen's edge.
    c('error', 'text', 'Why the run failed, when it did.'),
    c('duration_ms', 'number', 'How long the run took, in milliseconds.'),
    c('counts', 'json', 'What the run did, as counts (published, deleted, checks, changes…).'),
    c('summary', 'text', 'One line saying what the run did.'),
    demo,
  ],
  retentionDays: 90,
  demoOnFirstStart: true,
  writtenBy: 'jobs',
  rollup: {
    dimensions: ['outcome', 'job', 'trigger'],
    sums: [],
    latency: null,
  },
  sortColumns: ['started_at', 'job', 'outcome', 'trigger'],
  errorFilter: "outcome = 'failed'",
  quickFilters: [
    { label: 'Failed', filter: "outcome = 'failed'" },
    { label: 'Already running (skipped)', filter: "outcome = 'skipped'" },
    { label: 'Dry runs', filter: "outcome = 'dry-run'" },
    { label: 'From cron', filter: "trigger = 'cron'" },
    { label: 'Message Center publishing', filter: "job = 'message-center-publish'" },
    { label: 'Domain posture', filter: "job = 'domain-posture'" },
  ],
  panels: [
    countOverTime,
    {
      id: 'runs_by_outcome',
      kind: 'timeseries',
      title: 'Runs by outcome over time',
      series: [
        { key: 'succeeded', label: 'Succeeded', aggregate: 'count', where: { column: 'outcome', equals: 'succeeded' } },
        { key: 'failed', label: 'Failed', aggregate: 'count', where: { column: 'outcome', equals: 'failed' } },
        { key: 'skipped', label: 'Skipped', aggregate: 'count', where: { column: 'outcome', equals: 'skipped' } },
        { key: 'dry_run', label: 'Dry run', aggregate: 'count', where: { column: 'outcome', equals: 'dry-run' } },
      ],
    },
    breakdown('outcome', 'Outcomes'),
    breakdown('job', 'Runs by job'),
    breakdown('trigger', 'Triggers'),
  ],
}

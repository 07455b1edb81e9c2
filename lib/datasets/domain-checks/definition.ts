import { breakdown, c, countOverTime, demo, top, type DatasetDef } from '@/lib/datasets/types'

export const definition: DatasetDef = {
  id: 'domain_checks',
  label: 'Domain checks',
  description:
    'History of the platform domains’ mail and DNS posture (the domain-posture job runs the graded check of GET /api/domains/{domain} for each of PLATFORM_DOMAINS). One row per domain and check per run; `check_name` = overall holds the grade and score. `change` says what differs from the previous run (null when nothing did).',
  table: 'domain_checks',
  timeColumn: 'checked_at',
  columns: [
    c('checked_at', 'timestamp', 'When the run checked the domain (UTC).'),
    c('domain', 'text', 'The platform domain.'),
    c('check_name', 'text', 'overall, or one check: mx, spf, dmarc, dkim, mtaSts, tlsRpt, bimi, dnssec, caa, dane.'),
    c('grade', 'text', 'The domain’s grade at this run (A–F).'),
    c('score', 'integer', 'The domain’s score at this run (0–100).'),
    c('status', 'text', 'The check’s status (pass, warn, fail, info, not_found); for overall: graded, or error when the domain could not be checked.'),
    c('findings', 'text', 'What the check found: its detail line and warnings; for overall, the summary counts or the error.'),
    c('previous_status', 'text', 'Status at the previous run (for overall: the previous grade); null on the first run.'),
    c('changed', 'boolean', 'Whether the status, grade or findings differ from the previous run.'),
    c('change', 'text', 'What changed, e.g. "grade B → A" or "status warn → fail"; null when nothing did.'),
    demo,
  ],
  retentionDays: 365,
  demoOnFirstStart: true,
  writtenBy: 'jobs',
  rollup: {
    dimensions: ['changed', 'change', 'grade', 'status', 'domain', 'check_name'],
    sums: [],
    latency: null,
  },
  sortColumns: ['checked_at', 'domain', 'check_name', 'status', 'grade'],
  errorFilter: "status IN ('fail', 'error')",
  quickFilters: [
    { label: 'Changes', filter: 'changed = true' },
    { label: 'Grades only', filter: "check_name = 'overall'" },
    { label: 'Failing checks', filter: "status = 'fail'" },
    { label: 'Grade D or F', filter: "grade IN ('D', 'F')" },
  ],
  panels: [
    countOverTime,
    {
      id: 'changes_over_time',
      kind: 'timeseries',
      title: 'Grade and status changes over time',
      series: [{ key: 'changes', label: 'Changes', aggregate: 'count', where: { column: 'changed', equals: true } }],
    },
    top('change', 'Grade and status changes'),
    breakdown('grade', 'Grades'),
    breakdown('status', 'Check statuses'),
    top('domain', 'Domains'),
    breakdown('check_name', 'Checks'),
  ],
}

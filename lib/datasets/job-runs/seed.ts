import { pick, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  const jobs = ['message-center-publish', 'message-center-dedupe', 'domain-posture', 'partition-maintenance']
  return `INSERT INTO job_runs (started_at, ended_at, job, trigger, outcome, duration_ms, counts, summary, error, demo)
SELECT st, st + d * interval '1 millisecond', j, ${pick(['cron', 'cron', 'cron', 'cli', 'http'], 'r2', 1)}, o, d,
  jsonb_build_object('scanned', floor(r4 * 60)::int, 'changed', floor(power(r5, 4) * 5)::int), 'Demonstration run (' || o || ').',
  CASE WHEN o = 'failed' THEN 'Upstream answered 502 Bad Gateway.' END, true
FROM (SELECT *, ${since(target, days, 'r0')} AS st, ${pick(jobs, 'r1', 1)} AS j, ${pick(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'dry-run', 'skipped', 'failed'], 'r3', 1.3)} AS o, round((150 + power(r4, 2) * 8000)::numeric, 2)::float8 AS d FROM ${rows}) t`
}

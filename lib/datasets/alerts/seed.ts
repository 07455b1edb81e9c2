import { pick, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  return `INSERT INTO alerts (at, kind, event, alert_key, view_id, name, dataset, metric, op, threshold, value, window_minutes, summary, delivery, attempts, delivered_at, last_error, demo)
SELECT st, k, e, CASE WHEN k = 'posture' THEN 'posture:' || nm ELSE 'view:' || vid END, CASE WHEN k = 'condition' THEN vid END, CASE WHEN k = 'posture' THEN nm END,
  CASE WHEN k = 'posture' THEN 'domain_checks' ELSE 'requests' END,
  CASE WHEN k = 'condition' THEN 'error_rate' END, CASE WHEN k = 'condition' THEN 'above' END, CASE WHEN k = 'condition' THEN 0.05 END, CASE WHEN k = 'condition' THEN round((r4 * 0.2)::numeric, 4)::float8 END,
  CASE WHEN k = 'condition' THEN 15 END, 'Demonstration alert (' || e || ').', dl, CASE WHEN dl = 'disabled' THEN 0 ELSE 1 + floor(power(r5, 3) * 3)::int END,
  CASE WHEN dl = 'delivered' THEN st + interval '2 seconds' END, CASE WHEN dl = 'pending' THEN 'receiver answered HTTP 503' END, true
FROM (SELECT *, ${since(target, days, 'r0')} AS st, CASE WHEN k = 'posture' THEN 'changed' ELSE ${pick(['fired', 'resolved'], 'r2', 1)} END AS e,
    CASE WHEN k = 'posture' THEN ${pick(['example.com', 'example.org', 'example.net'], 'r3', 1)} END AS nm,
    ${pick(['demo-api-errors', 'demo-dns-servfail', 'demo-failed-jobs', 'demo-slow-routes'], 'r3')} AS vid,
    ${pick(['delivered', 'delivered', 'delivered', 'delivered', 'suppressed', 'pending', 'disabled'], 'r4', 1.3)} AS dl
  FROM (SELECT *, ${pick(['condition', 'condition', 'condition', 'posture'], 'r1', 1)} AS k FROM ${rows}) v) t`
}

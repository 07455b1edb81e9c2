import { pick, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  const checks = ['overall', 'mx', 'spf', 'dmarc', 'dkim', 'mtaSts', 'tlsRpt', 'bimi', 'dnssec', 'caa', 'dane']
  return `INSERT INTO domain_checks (checked_at, domain, check_name, grade, score, status, findings, previous_status, changed, change, demo)
SELECT ${since(target, days, 'r0')}, ${pick(['example.com', 'example.org', 'example.net'], 'r1', 1)}, cn, gr, CASE gr WHEN 'A' THEN 92 WHEN 'B' THEN 80 WHEN 'C' THEN 65 ELSE 35 END,
  CASE WHEN cn = 'overall' THEN 'graded' ELSE st END, 'Demonstration finding for ' || cn || '.', CASE WHEN ch THEN CASE WHEN cn = 'overall' THEN pg ELSE ps END ELSE CASE WHEN cn = 'overall' THEN gr ELSE st END END, ch,
  CASE WHEN ch THEN CASE WHEN cn = 'overall' THEN 'grade ' || pg || ' → ' || gr ELSE 'status ' || ps || ' → ' || st END END, true
FROM (SELECT *, CASE WHEN gr = 'B' THEN 'A' ELSE 'B' END AS pg, CASE WHEN st = 'warn' THEN 'pass' ELSE 'warn' END AS ps
  FROM (SELECT *, ${pick(checks, 'r2', 1)} AS cn, ${pick(['A', 'A', 'B', 'B', 'C', 'F'], 'r3', 1)} AS gr, ${pick(['pass', 'pass', 'pass', 'warn', 'fail', 'info', 'not_found'], 'r4', 1)} AS st, r5 < 0.05 AS ch FROM ${rows}) v) t`
}

import { pick, userField, DOMAINS, CATEGORIES, APPS, COLOS, LOCATIONS, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  const decision = pick(
    [
      'allowedOnNoPolicyMatch',
      'allowedOnNoPolicyMatch',
      'allowedOnNoPolicyMatch',
      'allowedOnNoPolicyMatch',
      'allowedByQueryName',
      'blockedByCategory',
      'blockedByQueryName',
      'overrideForSafeSearch',
      'blockedAlwaysCategory',
    ],
    'r1',
    1.3,
  )
  return `INSERT INTO gateway_dns (datetime, colo_code, device_name, email, location, policy_id, policy_name, protocol, query_application_names, query_category_names, query_id, query_name, query_type_name, rcode, redirect_target_uri, resolved_ips, resolver_decision, response_time_ms, src_ip, user_id, demo)
SELECT ${since(target, days, 'r0')}, ${pick(COLOS, 'r2')}, ${userField('device', 'u')}, CASE WHEN r5 < 0.1 THEN NULL ELSE ${userField('email', 'u')} END, ${pick(LOCATIONS, 'r3')},
  CASE WHEN d LIKE 'allowedOnNoPolicyMatch' THEN NULL ELSE 'a7f1c0de-' || length(d) END,
  CASE WHEN d LIKE 'blocked%' THEN 'Block security risks' WHEN d = 'overrideForSafeSearch' THEN 'Safe search' WHEN d = 'allowedByQueryName' THEN 'Allow corporate domains' END,
  ${pick(['https', 'udp', 'tls', 'tcp'], 'r4')}, ${pick(APPS, 'r2')}, ${pick(CATEGORIES, 'r3')}, gen_random_uuid()::text, qn,
  ${pick(['A', 'AAAA', 'HTTPS', 'CNAME', 'TXT', 'MX'], 'r4')}, CASE WHEN r5 > 0.95 THEN 3 WHEN r5 > 0.94 THEN 2 ELSE 0 END,
  CASE WHEN d LIKE 'blocked%' THEN 'https://blocked.example.com/?domain=' || qn END,
  CASE WHEN d NOT LIKE 'blocked%' AND r5 <= 0.94 THEN '104.16.' || floor(r2 * 255)::int || '.' || floor(r3 * 255)::int END,
  d, 1 + floor(power(r4, 3) * 120)::int, ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, CASE WHEN r5 < 0.1 THEN NULL ELSE ${userField('user_id', 'u')} END, true
FROM (SELECT *, ${decision} AS d, ${pick(DOMAINS, 'r2', 1.8)} AS qn FROM ${rows}) t`
}

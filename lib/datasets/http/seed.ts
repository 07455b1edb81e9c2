import { pick, userField, DOMAINS, CATEGORIES, APPS, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  const action = pick(['allow', 'allow', 'allow', 'allow', 'allow', 'block', 'bypass', 'isolate'], 'r1', 1.2)
  return `INSERT INTO gateway_http (datetime, action, application_names, category_names, destination_ip, destination_port, device_name, email, http_host, http_method, http_status_code, http_version, policy_id, policy_name, redirect_target_uri, referer, request_id, session_id, source_internal_ip, source_ip, source_port, url, user_agent, user_id, virtual_network_name, demo)
SELECT ${since(target, days, 'r0')}, a, ${pick(APPS, 'r2')}, ${pick(CATEGORIES, 'r3')}, ('104.18.' || floor(r2 * 64)::int || '.' || floor(r4 * 255)::int)::inet, CASE WHEN r5 < 0.07 THEN 80 ELSE 443 END,
  ${userField('device', 'u')}, ${userField('email', 'u')}, h, ${pick(['GET', 'GET', 'POST', 'PUT', 'HEAD'], 'r3', 1)},
  CASE WHEN a = 'block' THEN 403 WHEN r4 < 0.03 THEN 404 WHEN r4 < 0.04 THEN 502 ELSE 200 END, ${pick(['HTTP/2', 'HTTP/1.1', 'HTTP/3'], 'r5')},
  CASE WHEN a = 'allow' AND r3 < 0.7 THEN NULL ELSE 'b4d0c0de-' || length(a) END,
  CASE WHEN a = 'allow' AND r3 < 0.7 THEN 'Global Policy' WHEN a = 'block' THEN 'Block malware and ads' WHEN a = 'bypass' THEN 'Do not inspect banking' WHEN a = 'isolate' THEN 'Isolate unknown sites' ELSE 'Allow corporate apps' END,
  CASE WHEN a = 'block' THEN 'https://blocked.example.com/' END, CASE WHEN r2 > 0.7 THEN 'https://' || h || '/' END,
  md5(g::text || r0::text), md5(u::text || floor(r0 * 5000)::text), ('10.0.' || u || '.' || (10 + u))::inet, ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, 1024 + floor(r4 * 60000)::int,
  'https://' || h || ${pick(['/', '/api/v1/items', '/login', '/assets/app.js', '/search?q=***'], 'r4')},
  ${pick(['Mozilla/5.0 (Macintosh) Safari/605.1.15', 'Mozilla/5.0 (Windows NT 10.0) Chrome/131.0', 'Slack/4.41', 'Zoom/6.2'], 'r2')},
  ${userField('user_id', 'u')}, ${pick(['default', 'office-vnet', null], 'r3')}, true
FROM (SELECT *, ${action} AS a, ${pick(DOMAINS, 'r2', 1.8)} AS h FROM ${rows}) t`
}

import { pick, COUNTRIES, since, timeOrderedUuid, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  const routes = [
    '/api/health',
    '/api/ipcheck',
    '/api/domains/{domain}',
    '/api/directory/tenantinfo',
    '/api/generate/guid',
    '/api/deviceosversion/{deviceModel}',
    '/api/mcp',
    '/api/directory/convertid/{id}',
    '/api/blog/authors',
    '/api/generate/timestamp/ticks',
    '/api/openapi.json',
    '/api/pds/repos',
    '/wp-login.php',
  ]
  const tools = ['check_api_health', 'check_domain_health', 'list_domains', 'list_policies', 'get_pds_bsky_heatmap', 'get_pds_repos']
  const status = `CASE WHEN r1 < 0.02 THEN 429 WHEN r1 < 0.05 THEN 404 WHEN r1 < 0.09 THEN 400 WHEN r1 < 0.097 THEN 500 WHEN r1 < 0.1 THEN 502 WHEN r1 < 0.13 THEN 304 ELSE 200 END`
  return `INSERT INTO request_log (time, request_id, method, route, query, status, duration_ms, client_ip, country, user_agent, referrer, api_key_present, rate_limited, mcp_tool, demo)
SELECT at, ${timeOrderedUuid('at')}, ${pick(['GET', 'GET', 'GET', 'POST', 'OPTIONS'], 'r2', 1)}, route, CASE WHEN r3 < 0.4 THEN 'domain=***' ELSE '' END,
  ${status}, round((exp(1 + r4 * 3.2) * CASE WHEN r5 < 0.01 THEN 40 ELSE 1 END)::numeric, 2)::float8,
  ('198.51.' || floor(power(r5, 2) * 60)::int || '.0')::inet, ${pick(COUNTRIES, 'r3')},
  ${pick(['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15', 'curl/8.7.1', 'python-requests/2.32.3', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36', 'node', 'Go-http-client/2.0'], 'r4')},
  CASE WHEN r5 > 0.9 THEN ${pick(['https://example.com/', 'https://news.ycombinator.com/', 'docs'], 'r2')} END,
  r2 < 0.1, ${status} = 429, CASE WHEN route = '/api/mcp' THEN ${pick(tools, 'r3')} END, true
FROM (SELECT *, ${pick(routes, 'r1', 2.2)} AS route, ${since(target, days, 'r0')} AS at FROM ${rows}) t`
}

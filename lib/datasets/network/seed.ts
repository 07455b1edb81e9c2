import { pick, userField, DOMAINS, CATEGORIES, APPS, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  return `INSERT INTO gateway_network (datetime, action, application_names, category_names, destination_ip, destination_port, detected_protocol, device_name, email, policy_id, policy_name, session_id, sni, source_internal_ip, source_ip, source_port, transport, virtual_network_name, demo)
SELECT ${since(target, days, 'r0')}, ${pick(['allow', 'allow', 'allow', 'allow', 'block', 'audit_ssh'], 'r1', 1.2)}, ${pick(APPS, 'r2')}, ${pick(CATEGORIES, 'r3')},
  ('172.64.' || floor(power(r2, 2) * 40)::int || '.' || floor(r4 * 255)::int)::inet, ${pick([443, 443, 80, 53, 22, 3389, 8443], 'r3', 1.5)},
  ${pick(['tls', 'http', 'dns', 'ssh', null], 'r4')}, ${userField('device', 'u')}, ${userField('email', 'u')},
  CASE WHEN r1 < 0.7 THEN NULL ELSE 'c0ffee00-' || floor(r1 * 4)::int END, CASE WHEN r1 < 0.7 THEN NULL ELSE ${pick(['Block RDP', 'Allow SSH for admins', 'Block high-risk ports'], 'r5', 1)} END,
  md5(u::text || floor(r0 * 5000)::text), ${pick(DOMAINS, 'r2', 1.8)}, ('10.0.' || u || '.' || (10 + u))::inet, ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, 1024 + floor(r4 * 60000)::int,
  ${pick(['tcp', 'tcp', 'tcp', 'udp', 'icmp'], 'r5', 1)}, ${pick(['default', 'office-vnet', null], 'r3')}, true
FROM ${rows}`
}

import { pick, userField, DOMAINS, COLOS, since, type SeedContext } from '@/lib/datasets/storage/seed-sql'

/** The demo rows' INSERT … SELECT (lib/datasets/seed.ts). */
export function seedSql({ target, days, rows }: SeedContext): string {
  return `INSERT INTO gateway_sessions (session_start_time, session_end_time, email, device_name, user_id, device_id, registration_id, session_id, source_ip, source_internal_ip, source_port, origin_ip, origin_port, initial_origin_ip, resolved_fqdn, sni, protocol, detected_protocol, bytes_sent, bytes_received, connection_reuse, connection_close_reason, client_tls_version, client_tls_cipher, client_tls_handshake_duration_ms, client_tcp_handshake_duration_ms, origin_tls_version, origin_tls_cipher, origin_tls_handshake_duration_ms, origin_tls_certificate_issuer, origin_tls_certificate_validation_result, egress_colo_name, ingress_colo_name, egress_ip, egress_port, off_ramp, destination_tunnel_id, virtual_network_id, rule_evaluation_duration_ms, demo)
SELECT st, st + (power(r1, 3) * interval '2 hours'), ${userField('email', 'u')}, ${userField('device', 'u')}, ${userField('user_id', 'u')}, md5('device' || u), md5('reg' || u), md5(g::text || r0::text),
  ('192.0.2.' || (1 + floor(r1 * 40)::int))::inet, ('10.0.' || u || '.' || (10 + u))::inet, 1024 + floor(r4 * 60000)::int,
  ('104.18.' || floor(r2 * 64)::int || '.' || floor(r4 * 255)::int)::inet, CASE WHEN r3 < 0.9 THEN 443 ELSE 80 END, ('104.18.' || floor(r2 * 64)::int || '.' || floor(r4 * 255)::int)::inet,
  fq, fq, p, CASE WHEN p = 'udp' THEN 'quic' ELSE ${pick(['tls', 'http'], 'r4', 1)} END,
  floor(exp(6 + r2 * 10))::bigint, floor(exp(7 + r3 * 12))::bigint, r5 < 0.3, ${pick(['CLIENT_CLOSED', 'ORIGIN_CLOSED', 'IDLE_TIMEOUT', 'ORIGIN_UNREACHABLE'], 'r4')},
  ${pick(['TLSv1.3', 'TLSv1.3', 'TLSv1.2', null], 'r2', 1)}, ${pick(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'ECDHE-RSA-AES128-GCM-SHA256'], 'r3')},
  5 + floor(r4 * 60)::int, 1 + floor(r5 * 40)::int, ${pick(['TLSv1.3', 'TLSv1.2'], 'r2', 1.5)}, ${pick(['TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256'], 'r3')},
  5 + floor(r1 * 80)::int, ${pick(["Let's Encrypt", 'Google Trust Services', 'DigiCert Inc'], 'r5')}, CASE WHEN r5 < 0.98 THEN 'VALID' ELSE 'EXPIRED' END,
  ${pick(COLOS, 'r2')}, ${pick(COLOS, 'r3')}, ('203.0.113.' || (1 + floor(r4 * 8)::int))::inet, 1024 + floor(r5 * 60000)::int,
  ${pick(['INTERNET', 'INTERNET', 'TUNNEL'], 'r1', 1)}, CASE WHEN r1 > 0.8 THEN 'tunnel-' || floor(r2 * 3)::int END, ${pick(['default', 'office-vnet', null], 'r3')}, floor(r4 * 3)::int, true
FROM (SELECT *, ${since(target, days, 'r0')} AS st, ${pick(DOMAINS, 'r2', 1.8)} AS fq, ${pick(['tcp', 'tcp', 'tcp', 'udp'], 'r1', 1)} AS p FROM ${rows}) t`
}

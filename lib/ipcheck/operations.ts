import { defineOperation } from '@/lib/http/operation'
import { IpCheckBatchBody, IpCheckBatchResult, IpCheckQuery, IpCheckResult } from '@/lib/ipcheck/schemas'

export const checkIpOp = defineOperation({
  method: 'GET',
  path: '/ipcheck',
  operationId: 'checkIp',
  tag: 'IP checker',
  summary: 'Geolocation and network data for an IP address',
  description: [
    "Looks up `ip`, or a predefined `location`: `me` (the caller's own address; also the default when neither is given) or `home` (the operator's dynamic-DNS name, resolved through DNS).",
    'Addresses must be plain IPv4 or IPv6; legacy forms (`01.2.3.4`, `0x7f.1`), ranges and host names are a 400. Private, loopback, link-local, shared-NAT, multicast and reserved addresses are answered with a 400 saying which range they are in, without asking the geolocation provider.',
    'A location that cannot be resolved (home not configured, no DNS address, caller address unknown) is a 404. Data comes from ip-api.com and is cached per address for an hour; when its request budget is spent the answer is a 502 with `Retry-After`.',
  ].join('\n\n'),
  query: IpCheckQuery,
  success: { description: 'The lookup', schema: IpCheckResult },
  examples: [
    { name: 'address', summary: 'An IPv4 address', query: { ip: '24.48.0.1' } },
    { name: 'me', summary: "The caller's own address", query: { location: 'me' } },
    { name: 'private', summary: 'A private address', query: { ip: '192.168.1.10' } },
    { name: 'homeNotConfigured', summary: 'location=home on a server without HOME_DDNS_HOSTNAME', query: { location: 'home' } },
  ],
  errors: ['not_found', 'upstream_failed', 'upstream_timeout'],
  errorFormat: 'statusMessage',
  // Depends on the caller for location=me, so shared caches must not keep it.
  cacheControl: 'private, max-age=300',
})

export const checkIpsOp = defineOperation({
  method: 'POST',
  path: '/ipcheck',
  operationId: 'checkIps',
  tag: 'IP checker',
  summary: 'Look up to 100 IP addresses at once',
  description:
    'Each address is validated and answered on its own: an invalid, private or failed item gets its own `error` while the others still succeed. Uncached addresses are fetched from ip-api.com in one batch request.',
  body: IpCheckBatchBody,
  success: { description: 'Per-item results, in input order', schema: IpCheckBatchResult },
  examples: [
    { name: 'mixed', summary: 'A public, a private and an invalid address', body: { ips: ['24.48.0.1', '192.168.1.10', '2'] } },
    { name: 'empty', summary: 'No addresses', body: { ips: [] } },
  ],
  errorFormat: 'statusMessage',
})

export const ipcheckOperations = [checkIpOp, checkIpsOp]

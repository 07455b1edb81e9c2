import { DomainHealthQuery, DomainHealthReport, DomainList, DomainParams } from '@/lib/domains/schemas'
import { defineOperation } from '@/lib/http/operation'

export const listDomainsOp = defineOperation({
  method: 'GET',
  path: '/domains',
  operationId: 'listPlatformDomains',
  tag: 'Domains',
  summary: "The platform's domains and their published records",
  description:
    'The domains named by the `PLATFORM_DOMAINS` setting (or, when it is unset, the list shipped with the service), at most 50, each with its NS, MX, SPF and DMARC records looked up live over DNS over HTTPS (answers cached up to 60 s). ' +
    'A domain whose records cannot be read carries an `error` and empty fields; 502/504 only when the resolver fails for every domain.',
  success: { description: 'The platform domains with their records', schema: DomainList },
  examples: [{ name: 'all', summary: 'Two platform domains' }],
  errors: ['upstream_failed', 'upstream_timeout'],
  cacheControl: 'public, max-age=60',
})

export const checkDomainOp = defineOperation({
  method: 'GET',
  path: '/domains/{domain}',
  operationId: 'checkDomainHealth',
  tag: 'Domains',
  summary: 'DNS and mail-security health check of a domain',
  description: [
    'Checks any domain (platform domains are flagged `isPlatformDomain`): MX (incl. null MX, RFC 7505), SPF (RFC 7208: include/redirect tree, DNS-lookup count against the 10-lookup and 2-void-lookup limits, the `all` qualifier), DMARC (RFC 9989: `np`, `psd`, `t`; removed `pct`/`rf`/`ri` flagged; tree walk to the organisational record; external `rua`/`ruf` authorisation), DKIM, MTA-STS (TXT record and the HTTPS policy: no redirects, 200, text/plain, ≤ 64 KiB, fetched only when `mta-sts.{domain}` resolves to public addresses; mode, max_age, whether its `mx` patterns cover the MX hosts), TLS-RPT, BIMI, DNSSEC, CAA (closest set walking up) and DANE (TLSA `_25._tcp` on up to 10 MX hosts).',
    '',
    'Each check has a `status` (`pass`, `warn`, `fail`, `info`, `not_found`), a one-line `detail`, the raw `records`, all `warnings` and a `recommendation` with the record to publish (null when there is nothing to do).',
    '',
    '**Score**: weights DMARC 25, SPF 20, MX 10, DKIM 10, MTA-STS 10, DNSSEC 10, TLS-RPT 5, CAA 5, DANE 5, BIMI 0. `pass` earns the full weight, `warn` half, `fail`/`not_found` nothing; `info` checks are left out of the total. Grade A ≥ 90, B ≥ 75, C ≥ 60, D ≥ 40, F below.',
    '',
    '**Limits**: DKIM selectors cannot be listed from DNS, so only 16 common selectors (incl. Microsoft 365 `selector1`/`selector2`) plus up to 10 given in `selectors` are probed; a key that is not found is "not found among probed selectors", and `_domainkey.{domain}` existence (NOERROR vs NXDOMAIN) tells whether keys probably exist elsewhere. DNSSEC is the AD flag of a validating resolver. SPF macros are not expanded. DMARC report-address ownership is judged by domain suffix, not the Public Suffix List.',
    '',
    '**Failures**: lookups run concurrently within a budget of twice the upstream timeout (10 s by default); a check whose lookups fail or time out becomes `status: info` with the reason in `detail`, and the rest still report. 404 when the name does not exist (NXDOMAIN); 502 when the resolver fails or answers SERVFAIL for the domain itself; 504 when it does not answer in time.',
  ].join('\n'),
  params: DomainParams,
  query: DomainHealthQuery,
  success: { description: 'The health report', schema: DomainHealthReport },
  examples: [
    { name: 'wellConfigured', summary: 'A domain that passes every check', params: { domain: 'febit.eu' }, varies: ['/checkedAt'] },
    { name: 'weak', summary: 'A domain with weak mail security', params: { domain: 'weak.example' }, varies: ['/checkedAt'] },
    { name: 'noSuchDomain', summary: 'A name that does not exist (NXDOMAIN)', params: { domain: 'no-such-name.example' } },
    { name: 'notADomain', summary: 'Not a domain name', params: { domain: 'not_a_domain' } },
  ],
  errors: ['not_found', 'upstream_failed', 'upstream_timeout'],
  cacheControl: 'public, max-age=60',
})

export const domainOperations = [listDomainsOp, checkDomainOp]

import type { DnssecCheck } from '@/lib/domains/schemas'

// DNSSEC as the validating resolver reports it: the AD flag on the answers for the domain. A
// resolver that does not validate (or strips AD) makes every domain look unsigned, so the resolver
// behind DOH_URL must validate.

export function checkDnssec(domain: string, authenticated: boolean): DnssecCheck {
  return authenticated
    ? {
        authenticated,
        records: [],
        warnings: [],
        status: 'pass',
        detail: 'The answers for the domain validate with DNSSEC (AD flag set).',
        recommendation: null,
      }
    : {
        authenticated,
        records: [],
        warnings: [],
        status: 'fail',
        detail: `The answers for ${domain} are not DNSSEC-validated: the zone is unsigned or its DS record is missing at the parent.`,
        recommendation: { action: 'Turn on DNSSEC signing at your DNS host, then publish the DS record it gives you at your registrar.', record: null },
      }
}

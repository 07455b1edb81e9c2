import 'server-only'
import { z } from 'zod'
import { DkimSelectors, DomainHealthReport, DomainName } from '@/lib/domains/schemas'
import { checkDomainHealth } from '@/lib/domains/service'
import { defineTool } from '@/lib/mcp/tool'

// The REST operation takes the domain from the path and the selectors as a comma-separated query
// string; a tool gets typed JSON, so the same field schemas are wrapped as an object with an array.
const CheckDomainHealthInput = z.object({ domain: DomainName, selectors: DkimSelectors.optional() }).strict()

export const checkDomainHealthTool = defineTool({
  name: 'check_domain_health',
  title: 'Check the DNS and mail security of a domain',
  description: [
    'Runs a live DNS and mail-security health check of any domain (not only platform domains; `isPlatformDomain` says which): MX (including null MX), SPF (include/redirect tree, the 10-lookup and 2-void-lookup limits, the `all` qualifier), DMARC (RFC 9989 tree walk, external report-address authorisation), DKIM, MTA-STS (TXT record and HTTPS policy), TLS-RPT, BIMI, DNSSEC, CAA and DANE.',
    'Returns a 0-100 score and an A-F grade, a summary count per status, and for each check a `status` (pass, warn, fail, info, not_found), a one-line `detail`, the raw records, every warning and a recommendation (often the exact DNS record to publish); `recommendations` lists them all, heaviest-weighted check first.',
    'Limits: DKIM keys cannot be listed from DNS, so only 16 common selectors plus up to 10 given in `selectors` are probed; DNSSEC is the AD flag of a validating resolver; SPF macros are not expanded. DNS answers are cached for up to 60 s.',
    'Failures: a check whose lookups fail or overrun the time budget (twice the upstream timeout, 10 s by default) reports status `info` with the reason while the others still report. The call fails when the domain does not exist (NXDOMAIN), when the resolver fails or answers SERVFAIL for the domain itself, or when it does not answer in time.',
  ].join('\n\n'),
  input: CheckDomainHealthInput,
  output: DomainHealthReport,
  openWorld: true,
  run: (args) => checkDomainHealth(args),
  summarize: (r) => {
    const counts = `${r.summary.pass} pass, ${r.summary.warn} warn, ${r.summary.fail} fail, ${r.summary.not_found} not found, ${r.summary.info} info`
    const first = r.recommendations[0]
    return `${r.domain}: grade ${r.grade} (score ${r.score}/100); ${counts}.${first ? ` First recommendation (${first.check}): ${first.action}` : ' Nothing to fix.'}`
  },
  wholeAnswer: ({ domain, selectors }) =>
    `GET /api/domains/${encodeURIComponent(domain)}${selectors?.length ? `?selectors=${selectors.join(',')}` : ''} answers the raw records whole`,
  advice: {
    not_found: 'Check the spelling of the domain; list_domains lists the platform domains.',
  },
})

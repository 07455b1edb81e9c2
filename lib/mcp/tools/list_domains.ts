import 'server-only'
import { DomainList } from '@/lib/domains/schemas'
import { listPlatformDomains } from '@/lib/domains/service'
import { defineTool, largestFitting, NoArguments, RESULT_MAX_CHARS } from '@/lib/mcp/tool'

export const listDomainsTool = defineTool({
  name: 'list_domains',
  title: 'List the platform domains',
  description: [
    "Lists the platform's domains (from the server's PLATFORM_DOMAINS setting, or the list shipped with the service; at most 50) with the records looked up live for each: authoritative name servers, MX records, the SPF record, the DMARC record and its policy.",
    'It grades nothing: call check_domain_health with one of these domains for the full graded check. DNS answers are cached for up to 60 s.',
    `Limits: when the records of all domains would pass ${RESULT_MAX_CHARS} characters, the first domains are listed and the summary says how many; \`count\` is always the whole list.`,
    'Failures: a domain whose records cannot be read is listed with an `error` and empty fields; the call fails only when the resolver fails for every domain.',
  ].join('\n\n'),
  input: NoArguments,
  output: DomainList,
  openWorld: true,
  run: () => listPlatformDomains(),
  // 50 domains with long SPF records can pass the result budget: list the first ones that fit.
  fit: (list, _args, fits) => {
    const first = (n: number) => ({ ...list, domains: list.domains.slice(0, n) })
    const n = largestFitting(0, list.domains.length - 1, (k) => fits(first(k))) ?? 0
    return {
      result: first(n),
      note: `The records of the first ${n} of ${list.count} are listed, to stay within ${RESULT_MAX_CHARS} characters; check_domain_health reads any one domain, and GET /api/domains lists them all.`,
    }
  },
  summarize: (r) => {
    const failed = r.domains.filter((d) => d.error !== null).length
    return `${r.count} platform domains (from ${r.source})${failed ? `; ${failed} could not be read` : ''}: ${r.domains.map((d) => d.domain).join(', ')}.`
  },
})

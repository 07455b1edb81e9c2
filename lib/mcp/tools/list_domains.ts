import 'server-only'
import { DomainList } from '@/lib/domains/schemas'
import { listPlatformDomains } from '@/lib/domains/service'
import { defineTool, NoArguments } from '@/lib/mcp/tool'

export const listDomainsTool = defineTool({
  name: 'list_domains',
  title: 'List the platform domains',
  description: [
    "Lists the platform's domains (from the server's PLATFORM_DOMAINS setting, or the list shipped with the service; at most 50) with the records looked up live for each: authoritative name servers, MX records, the SPF record, the DMARC record and its policy.",
    'It grades nothing: call check_domain_health with one of these domains for the full graded check. DNS answers are cached for up to 60 s.',
    'Failures: a domain whose records cannot be read is listed with an `error` and empty fields; the call fails only when the resolver fails for every domain.',
  ].join('\n\n'),
  input: NoArguments,
  output: DomainList,
  openWorld: true,
  run: () => listPlatformDomains(),
  summarize: (r) => {
    const failed = r.domains.filter((d) => d.error !== null).length
    return `${r.count} platform domains (from ${r.source})${failed ? `; ${failed} could not be read` : ''}: ${r.domains.map((d) => d.domain).join(', ')}.`
  },
})

import 'server-only'
import { defineTool, NoArguments } from '@/lib/mcp/tool'
import { PolicyList } from '@/lib/policies/schemas'
import { listPolicies } from '@/lib/policies/service'

export const listPoliciesTool = defineTool({
  name: 'list_policies',
  title: 'List the platform policies',
  description: [
    'Lists the policies applied across the platform (legal, privacy, conduct, security, accessibility): for each its slug, title, a summary, category, version, the date the current version took effect and the HTTPS address of the full text, ordered by slug.',
    'The list ships with the service, so it needs no upstream and changes only with a release. Takes no arguments.',
    'Failures: none expected, since nothing outside the service is read.',
  ].join('\n\n'),
  input: NoArguments,
  output: PolicyList,
  openWorld: false,
  run: () => listPolicies(),
  summarize: (r) => `${r.count} policies: ${r.policies.map((p) => `${p.title} (${p.slug}, version ${p.version})`).join('; ')}.`,
})

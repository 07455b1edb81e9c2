import 'server-only'
import { defineTool, NoArguments } from '@/lib/mcp/tool'
import { ReposResult } from '@/lib/pds/schemas'
import { getRepos } from '@/lib/pds/service'

export const getPdsReposTool = defineTool({
  name: 'get_pds_repos',
  title: 'List the repositories on the PDS',
  description: [
    "Lists every repository (account) hosted on the platform's Bluesky PDS, read through all pages of com.atproto.sync.listRepos: the total, active and inactive counts, and for each repository its DID, head commit CID, revision, whether it is active and, when not, why (deactivated, takendown, suspended, …).",
    'Limits: the answer holds every repository, so it grows with the PDS. Cached for 60 s.',
    'Failures: the call fails when this server has no PDS configured (PDS_URL), when the PDS answers with an error or something unusable, or when it does not answer in time.',
  ].join('\n\n'),
  input: NoArguments,
  output: ReposResult,
  openWorld: true,
  run: () => getRepos(),
  summarize: (r) => `${r.total} repositories on the PDS: ${r.active} active, ${r.inactive} inactive.`,
})

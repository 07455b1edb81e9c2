import 'server-only'
import { z } from 'zod'
import { AppError } from '@/lib/errors'
import { defineTool, largestFitting, RESULT_MAX_CHARS } from '@/lib/mcp/tool'
import { Repo, ReposResult } from '@/lib/pds/schemas'
import { getRepos } from '@/lib/pds/service'

// The REST operation answers every repository; a tool result is read by a model whose client caps
// it, so the tool answers one page, and the page also stays within the result budget
// (RESULT_MAX_CHARS, lib/mcp/tool.ts). A repository entry is about 160 characters of JSON and
// appears twice (structured content and the text copy), so some 65 fit: the default page of 50
// does, and a larger page asked for is cut there, with `truncated` and `nextCursor` for the rest
// (tests/unit/mcp-result.test.ts walks 10,000 repositories). The counts cover the whole PDS. The
// cursor is the offset into the PDS's own listRepos order (the list is cached for 60 s, so
// consecutive pages read the same snapshot).

export const REPOS_DEFAULT_LIMIT = 50
export const REPOS_MAX_LIMIT = 200

const ReposInput = z
  .object({
    limit: z
      .int()
      .min(1)
      .max(REPOS_MAX_LIMIT)
      .default(REPOS_DEFAULT_LIMIT)
      .meta({ description: `Repositories per page (1–${REPOS_MAX_LIMIT}, default ${REPOS_DEFAULT_LIMIT})` }),
    cursor: z.string().max(64).optional().meta({ description: 'The `nextCursor` of the previous page; omit for the first page' }),
  })
  .strict()

const ReposPage = z.object({
  total: ReposResult.shape.total.meta({ description: 'Repositories on the PDS (all pages)' }),
  active: ReposResult.shape.active,
  inactive: ReposResult.shape.inactive,
  repos: z.array(Repo).meta({ description: 'This page of repositories, in the order the PDS lists them' }),
  truncated: z.boolean().meta({ description: 'true when more repositories follow this page' }),
  nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` to read the next page; null on the last page' }),
})

const encodeCursor = (offset: number) => Buffer.from(`repos:${offset}`).toString('base64url')

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  const match = /^repos:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString())
  if (!match)
    throw new AppError(
      'invalid_input',
      `cursor: '${cursor}' is not a cursor this tool returned. Pass the nextCursor of the previous page, or omit cursor for the first page.`,
    )
  return Number(match[1])
}

export const getPdsReposTool = defineTool({
  name: 'get_pds_repos',
  title: 'List the repositories on the PDS',
  description: [
    "Lists the repositories (accounts) hosted on the platform's Bluesky PDS, read through all pages of com.atproto.sync.listRepos: the total, active and inactive counts of the whole PDS, and one page of repositories, each with its DID, head commit CID, revision, whether it is active and, when not, why (deactivated, takendown, suspended, …).",
    `Limits: at most \`limit\` repositories per call (default ${REPOS_DEFAULT_LIMIT}, at most ${REPOS_MAX_LIMIT}), and fewer when the page would pass ${RESULT_MAX_CHARS} characters (about 65); when \`truncated\` is true, call again with \`cursor\` set to \`nextCursor\` for the next page. Cached for 60 s.`,
    'Failures: a cursor this tool did not return is refused. The call fails when this server has no PDS configured (PDS_URL), when the PDS answers with an error or something unusable, or when it does not answer in time.',
  ].join('\n\n'),
  input: ReposInput,
  output: ReposPage,
  openWorld: true,
  run: async ({ limit, cursor }) => {
    const offset = decodeCursor(cursor)
    const all = await getRepos()
    const end = Math.min(offset + limit, all.repos.length)
    const truncated = end < all.repos.length
    return {
      total: all.total,
      active: all.active,
      inactive: all.inactive,
      repos: all.repos.slice(offset, end),
      truncated,
      nextCursor: truncated ? encodeCursor(end) : null,
    }
  },
  fit: (page, { cursor }, fits) => {
    const offset = decodeCursor(cursor)
    const first = (n: number) => ({ ...page, repos: page.repos.slice(0, n), truncated: true, nextCursor: encodeCursor(offset + n) })
    const n = largestFitting(0, page.repos.length - 1, (k) => fits(first(k))) ?? 0
    return {
      result: first(n),
      note: `It holds ${n} of the ${page.repos.length} asked for, to stay within ${RESULT_MAX_CHARS} characters.`,
    }
  },
  summarize: (r) => {
    const counts = `${r.total} repositories on the PDS: ${r.active} active, ${r.inactive} inactive.`
    if (r.repos.length === 0) return `${counts} This page is empty.`
    return r.truncated ? `${counts} This page lists ${r.repos.length}; more follow (pass nextCursor as cursor).` : counts
  },
})

import 'server-only'
import { z } from 'zod'
import { defineTool } from '@/lib/mcp/tool'
import { FIRST_HEATMAP_YEAR, Heatmap, HeatmapYear } from '@/lib/pds/schemas'
import { getPostingHeatmap } from '@/lib/pds/service'

// The REST operation reads the year from a query string (coerced, defaulting to this year) and
// answers the bare day → count map; a tool gets a typed, required year, and its structured
// result must be an object with named fields, so the same map is wrapped with its totals.
const HeatmapInput = z.object({ year: HeatmapYear }).strict()

const HeatmapResult = z.object({
  year: z.int().meta({ description: 'The calendar year counted (UTC)' }),
  totalPosts: z.int().nonnegative(),
  activeDays: z.int().nonnegative().meta({ description: 'Days with at least one post' }),
  days: Heatmap,
})

export const getPdsBskyHeatmapTool = defineTool({
  name: 'get_pds_bsky_heatmap',
  title: 'Posts per day on the PDS for a year',
  description: [
    `Counts the Bluesky posts (app.bsky.feed.post records) of every active account on the platform's PDS per UTC day of one calendar year (\`year\`, ${FIRST_HEATMAP_YEAR} to the current year).`,
    'Returns the year, the total number of posts, how many days had posts, and `days`: a map from `YYYY-MM-DD` to the number of posts, holding only days with posts, in date order.',
    'Limits: posts dated in the future and posts of deactivated accounts are left out. The count reads every active account, so the first call for a year can take a while; answers are cached for 15 minutes (past years: 6 hours).',
    'Failures: a year outside the range is refused. The call fails when this server has no PDS configured (PDS_URL), or when the PDS fails or does not answer in time.',
  ].join('\n\n'),
  input: HeatmapInput,
  output: HeatmapResult,
  openWorld: true,
  run: async ({ year }) => {
    const days = await getPostingHeatmap(year)
    const counts = Object.values(days)
    return { year, totalPosts: counts.reduce((sum, n) => sum + n, 0), activeDays: counts.length, days }
  },
  summarize: (r) => `${r.year}: ${r.totalPosts} posts on ${r.activeDays} days across the PDS's active accounts.`,
})

import { route } from '@/lib/http/route'
import { getPdsHeatmapOp } from '@/lib/pds/operations'
import { getPostingHeatmap } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/blueskyHeatmap - posts per day across the PDS's active accounts
export const GET = route(getPdsHeatmapOp, ({ query }) => getPostingHeatmap(query.forYear))

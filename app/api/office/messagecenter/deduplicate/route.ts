import { route } from '@/lib/http/route'
import { deduplicateMessageCenterOp } from '@/lib/office/operations'
import { deduplicate } from '@/lib/office/service'

export const dynamic = 'force-dynamic'

// POST /api/office/messagecenter/deduplicate - report or delete duplicate Message Center posts (internal)
export const POST = route(deduplicateMessageCenterOp, ({ query }) => deduplicate(query.dryRun))

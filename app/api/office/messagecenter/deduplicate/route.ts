import { route } from '@/lib/http/route'
import { reportOf, runJob } from '@/lib/jobs/run'
import { deduplicateMessageCenterOp } from '@/lib/office/operations'

export const dynamic = 'force-dynamic'

// POST /api/office/messagecenter/deduplicate - report or delete duplicate Message Center posts
// (internal); the same job as the cron route and `npm run job`, under its lock and recorded in job_runs
export const POST = route(deduplicateMessageCenterOp, async ({ query }) =>
  reportOf(await runJob('message-center-dedupe', { trigger: 'http', dryRun: query.dryRun })),
)

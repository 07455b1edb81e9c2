import { route } from '@/lib/http/route'
import { reportOf, runJob } from '@/lib/jobs/run'
import { publishMessageCenterOp } from '@/lib/office/operations'

export const dynamic = 'force-dynamic'

// POST /api/office/messagecenter/publish - publish new Message Center posts (internal); the same
// job as the cron route and `npm run job`, under its lock and recorded in job_runs
export const POST = route(publishMessageCenterOp, async ({ query }) =>
  reportOf(await runJob('message-center-publish', { trigger: 'http', dryRun: query.dryRun, limit: query.limit })),
)

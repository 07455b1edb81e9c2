import { defineOperation } from '@/lib/http/operation'
import { DeduplicateQuery, DeduplicationReport, PublishQuery, PublishReport } from '@/lib/office/schemas'

export const publishMessageCenterOp = defineOperation({
  method: 'POST',
  path: '/office/messagecenter/publish',
  operationId: 'publishMessageCenterPosts',
  tag: 'Office',
  summary: 'Publish new Microsoft 365 Message Center posts to the blog (internal)',
  description:
    'Reads every Message Center message from Microsoft Graph and creates a blog post, slug `mc<number>` with the Message Center tag, for each one not on the blog yet; the body is sanitised (no script, styles or event handlers). Idempotent: a second run publishes nothing new. At most `limit` posts are created per run, newest first; a failed post is reported and the run continues. This is the `message-center-publish` job (also run by its cron route and `npm run job`): one run at a time across instances (409 while another runs), each recorded in the `job_runs` dataset. Errors are `{"error": …}`.',
  query: PublishQuery,
  success: { description: 'What the run did, per message', schema: PublishReport },
  examples: [
    { name: 'dryRun', summary: 'What a run would publish', query: { dryRun: 'true', limit: '3' } },
    { name: 'limitTooHigh', summary: 'A limit over 500', query: { limit: '1000' } },
  ],
  errors: ['conflict', 'upstream_failed', 'upstream_timeout', 'not_configured', 'unavailable'],
  errorFormat: 'errorString',
  internal: true,
})

export const deduplicateMessageCenterOp = defineOperation({
  method: 'POST',
  path: '/office/messagecenter/deduplicate',
  operationId: 'deduplicateMessageCenterPosts',
  tag: 'Office',
  summary: 'Find and remove duplicate Message Center posts on the blog (internal)',
  description:
    "Duplicates are posts whose slug Ghost auto-suffixed (`mc<number>-2`, `-3`, …) while the post with the base slug `mc<number>` exists. `dryRun` defaults to 'true' (only report); 'false' deletes them; any other value is a 400. A failed delete is counted in `failed` and the run continues. This is the `message-center-dedupe` job (also run by its cron route and `npm run job`): one run at a time across instances (409 while another runs), each recorded in the `job_runs` dataset. Errors are `{\"error\": …}`.",
  query: DeduplicateQuery,
  success: { description: 'The deduplication report', schema: DeduplicationReport },
  examples: [
    { name: 'dryRun', summary: 'Report duplicates without deleting them', query: { dryRun: 'true' } },
    { name: 'notABoolean', summary: "dryRun other than 'true' or 'false'", query: { dryRun: 'yes' } },
  ],
  errors: ['conflict', 'upstream_failed', 'upstream_timeout', 'not_configured', 'unavailable'],
  errorFormat: 'errorString',
  internal: true,
})

export const officeOperations = [publishMessageCenterOp, deduplicateMessageCenterOp]

import 'server-only'
import { errorBody } from '@/lib/http/errors'
import { type ErrorCode, ERROR_STATUS } from '@/lib/errors'
import { envelope } from '@/lib/http/envelope'
import { cronAuthProblem } from '@/lib/jobs/cron-secret'
import { isJobName, JOB_NAMES } from '@/lib/jobs/names'
import { runJob, type JobRun } from '@/lib/jobs/run'

// The cron routes, GET /api/cron/<job>: what Vercel Cron calls (vercel.json), with
// `Authorization: Bearer $CRON_SECRET`. Nothing else is accepted, the secret is compared in
// constant time, and without CRON_SECRET every call is refused. Not operations of the public API:
// they are absent from the OpenAPI document, and answer refusals in the internal operations'
// error shape ({"error": …, "requestId": …}).

const ROUTE = '/api/cron/{job}'

/** What a cron call answers: the run as JSON; a failed run is a 500 so the scheduler records a failure. */
function runBody(run: JobRun) {
  const { job, trigger, outcome, startedAt, endedAt, durationMs, counts, summary, error, recorded } = run
  return { job, trigger, outcome, startedAt, endedAt, durationMs, counts, summary, error, recorded }
}

export function handleCronRequest(request: Request, job: string): Promise<Response> {
  return envelope(request, { route: ROUTE, errorFormat: 'errorString', record: true }, async ({ requestId }) => {
    const answer = (status: number, body: unknown, extra: Record<string, string> = {}) =>
      Response.json(body, { status, headers: { 'cache-control': 'no-store', ...extra } })
    const refuse = (code: ErrorCode, message: string, extra: Record<string, string> = {}) =>
      answer(ERROR_STATUS[code], errorBody('errorString', code, message, requestId), extra)

    const problem = cronAuthProblem(request.headers.get('authorization'))
    if (problem) return refuse(problem.code, problem.message, problem.code === 'unauthorized' ? { 'www-authenticate': 'Bearer realm="cron"' } : {})
    // Only after the secret, so the job names are not there to probe.
    if (!isJobName(job)) return refuse('not_found', `No job named "${job}" (one of: ${JOB_NAMES.join(', ')}).`)
    const dryRun = new URL(request.url).searchParams.get('dryRun') === 'true'
    const run = await runJob(job, { trigger: 'cron', dryRun })
    return answer(run.outcome === 'failed' ? 500 : 200, runBody(run))
  })
}

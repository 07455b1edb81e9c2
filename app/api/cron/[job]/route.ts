import { handleCronRequest } from '@/lib/jobs/cron'

export const dynamic = 'force-dynamic'
// A publishing run reads every Graph page and writes posts; Vercel stops a function at maxDuration.
export const maxDuration = 300

// GET /api/cron/{job} - run one scheduled job (Vercel Cron; Authorization: Bearer $CRON_SECRET)
export async function GET(request: Request, { params }: { params: Promise<{ job: string }> }) {
  return handleCronRequest(request, (await params).job)
}

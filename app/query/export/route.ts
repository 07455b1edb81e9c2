import { crossSiteNavigation } from '@/lib/access/policy'
import { withAccess } from '@/lib/access/server'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { EXPORT_CONTENT_TYPES, exportFileName, openExport } from '@/lib/query/export'
import type { ExportFormat } from '@/lib/query/schemas'
import { queryAs } from '@/lib/saved-views/views'
import { parseViewState, rangeRequest, sortRequest, type SearchParams } from '@/lib/view/view-state'

export const dynamic = 'force-dynamic'

// GET /query/export?format=csv|ndjson&dataset=…&range=…&filter=…&cols=…&sort=… - every row of that
// page state (not only one page), in the page's order (newest first by default), streamed, up to QUERY_EXPORT_MAX_ROWS
export const GET = withAccess('/query/export', async ({ request, requestId, identity }) => {
  // A download runs the filter as the operator: only from our own pages (or a typed address), never from another site's link.
  const site = crossSiteNavigation(request.headers)
  if (site) throw new AppError('forbidden', `This export was requested from another site (Sec-Fetch-Site: ${site}); open the query page and export from there.`)
  const params = request.nextUrl.searchParams
  // Every matching row: the page's limit and offset do not apply.
  const { limit: _limit, offset: _offset, ...view } = Object.fromEntries(params) as SearchParams
  const { state, notices } = parseViewState(view, { maxRangeDays: config.QUERY_MAX_RANGE_DAYS })
  // A page shows such a link with defaults and a notice; a download must not silently differ.
  if (notices.length) throw new AppError('invalid_input', notices.join(' '))
  const format = (params.get('format') ?? 'csv') as ExportFormat
  const opened = await queryAs(identity, () =>
    openExport({ ...rangeRequest(state), format, columns: state.columns.length ? state.columns : undefined }, { sort: sortRequest(state) }),
  )
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await queryAs(identity, () => opened.chunks.next())
        if (next.done) controller.close()
        else controller.enqueue(encoder.encode(next.value))
      } catch (error) {
        // Headers are sent: the only way left to say so is to break the download.
        log.error('query export failed mid-stream', { requestId, error: error instanceof Error ? error.message : String(error) })
        controller.error(error)
      }
    },
    async cancel() {
      await opened.chunks.return()
    },
  })
  return new Response(body, {
    headers: {
      'content-type': EXPORT_CONTENT_TYPES[opened.format],
      'content-disposition': `attachment; filename="${exportFileName(opened)}"`,
      'x-export-max-rows': String(opened.maxRows),
    },
  })
})

import type { AccessResult } from '@/lib/access/policy'
import { describeRefusal } from '@/lib/access/refusal'
import { ERROR_STATUS } from '@/lib/errors'
import { StatusPage } from './status-page'

// A query page whose own access check failed (the proxy normally refuses first): the same words
// as the proxy's refusal page.
export function Refused({ access, requestId }: { access: Extract<AccessResult, { ok: false }>; requestId: string | null }) {
  const refusal = describeRefusal(access)
  return <StatusPage status={ERROR_STATUS[access.code]} title={refusal.title} what={refusal.what} next={refusal.next} requestId={requestId} />
}

import { withAccess } from '@/lib/access/server'
import { sendTestNotification } from '@/lib/alerts/test-notification'
import { ownerOf } from '@/lib/saved-views/views'

export const dynamic = 'force-dynamic'

// POST /query/api/saved/{id}/test-notification - send a notification marked as a test through the
// alert's channel(s) and destination(s) of one of your saved views; answers each destination's outcome
export const POST = withAccess('/query/api/saved/{id}/test-notification', ({ identity, params }) => sendTestNotification(ownerOf(identity), params.id))

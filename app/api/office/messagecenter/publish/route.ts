import { route } from '@/lib/http/route'
import { publishMessageCenterOp } from '@/lib/office/operations'
import { publish } from '@/lib/office/service'

export const dynamic = 'force-dynamic'

// POST /api/office/messagecenter/publish - publish new Message Center posts (internal)
export const POST = route(publishMessageCenterOp, ({ query }) => publish(query))

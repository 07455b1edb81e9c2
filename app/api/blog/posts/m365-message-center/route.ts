import { listMessageCenterPostsOp } from '@/lib/blog/operations'
import { listPostsByTag } from '@/lib/blog/service'
import { config } from '@/lib/config'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/blog/posts/m365-message-center - deprecated alias of the Message Center tag listing
export const GET = route(listMessageCenterPostsOp, ({ query }) => listPostsByTag(config.MESSAGE_CENTER_TAG, query, '/blog/posts/m365-message-center'))

import { withAccess } from '@/lib/access/server'

export const dynamic = 'force-dynamic'

// GET /query/api/me - the identity the access policy resolved for this request
export const GET = withAccess('/query/api/me', ({ identity }) => identity)

import { listDomainsOp } from '@/lib/domains/operations'
import { listPlatformDomains } from '@/lib/domains/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/domains - the platform's domains and their published records
export const GET = route(listDomainsOp, () => listPlatformDomains())

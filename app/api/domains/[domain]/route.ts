import { checkDomainOp } from '@/lib/domains/operations'
import { checkDomainHealth } from '@/lib/domains/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/domains/{domain} - DNS and mail-security health check
export const GET = route(checkDomainOp, ({ params, query }) => checkDomainHealth({ domain: params.domain, selectors: query.selectors }))

import { tenantInfoOp } from '@/lib/directory/operations'
import { lookupTenantInfo } from '@/lib/directory/tenant-info'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/directory/tenantinfo - public facts about a Microsoft Entra tenant
export const GET = route(tenantInfoOp, ({ query }) => lookupTenantInfo(query))

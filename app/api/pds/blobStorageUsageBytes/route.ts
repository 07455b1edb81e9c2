import { route } from '@/lib/http/route'
import { getPdsBlobUsageOp } from '@/lib/pds/operations'
import { getBlobUsage } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/blobStorageUsageBytes - blob storage used by all active accounts
export const GET = route(getPdsBlobUsageOp, () => getBlobUsage())

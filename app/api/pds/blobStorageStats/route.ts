import { route } from '@/lib/http/route'
import { getPdsBlobStorageStatsOp } from '@/lib/pds/operations'
import { getBlobUsage } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/blobStorageStats - older path of /api/pds/blobStorageUsageBytes
export const GET = route(getPdsBlobStorageStatsOp, () => getBlobUsage())

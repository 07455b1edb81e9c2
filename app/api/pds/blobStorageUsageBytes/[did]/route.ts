import { route } from '@/lib/http/route'
import { getPdsAccountBlobUsageOp } from '@/lib/pds/operations'
import { getBlobUsageForDid } from '@/lib/pds/service'

export const dynamic = 'force-dynamic'

// GET /api/pds/blobStorageUsageBytes/{did} - blob storage used by one account
export const GET = route(getPdsAccountBlobUsageOp, ({ params }) => getBlobUsageForDid(params.did))

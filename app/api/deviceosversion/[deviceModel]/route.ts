import { getDeviceOsVersionOp } from '@/lib/deviceos/operations'
import { getDeviceOsVersion } from '@/lib/deviceos/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/deviceosversion/{deviceModel} - latest OS version for an Apple device model
export const GET = route(getDeviceOsVersionOp, ({ params, query }) => getDeviceOsVersion(params.deviceModel, query))

import { defineOperation } from '@/lib/http/operation'
import { DeviceOsParams, DeviceOsQuery, DeviceOsVersion } from '@/lib/deviceos/schemas'

export const getDeviceOsVersionOp = defineOperation({
  method: 'GET',
  path: '/deviceosversion/{deviceModel}',
  operationId: 'getDeviceOsVersion',
  tag: 'Device OS versions',
  summary: 'Highest OS version Apple offers a device model',
  description: [
    "Reads Apple's public device-management feed (gdmf.apple.com, verified against Apple's root certificate) and returns the highest version, compared numerically, whose supported devices include the model. Several branches are live at once (an iPhone may be offered 26.x and 18.x); the highest wins and `latestPerMajor` lists each branch.",
    "Macs are matched through their board IDs, mapped from model identifiers with the SOFA macOS feed (sofafeed.macadmins.io); SOFA's watchOS and tvOS feeds complete Apple's for those devices. The OS comes from the identifier's family.",
    'A malformed identifier or `currentOSVersion` is a 400; a model no feed lists is a 404; feeds that cannot be fetched (and have no copy from the last week) give a 502 or 504.',
  ].join('\n\n'),
  params: DeviceOsParams,
  query: DeviceOsQuery,
  success: { description: 'The latest version for the model', schema: DeviceOsVersion },
  examples: [
    { name: 'iPhone', summary: 'An iPhone, with the version it runs', params: { deviceModel: 'iPhone15,2' }, query: { currentOSVersion: '18.5' } },
    { name: 'mac', summary: 'A Mac', params: { deviceModel: 'Mac14,2' } },
    { name: 'unknownModel', summary: 'A model no feed lists', params: { deviceModel: 'iPhone99,9' } },
    { name: 'malformed', summary: 'Not a model identifier', params: { deviceModel: 'my-phone' } },
  ],
  errors: ['not_found', 'upstream_failed', 'upstream_timeout'],
  errorFormat: 'statusMessage',
  cacheControl: 'public, max-age=900',
})

export const deviceosOperations = [getDeviceOsVersionOp]

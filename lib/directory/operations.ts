import { defineOperation } from '@/lib/http/operation'
import { ConvertIdBatchBody, ConvertIdBatchResult, ConvertIdParams, ConvertIdResult } from '@/lib/directory/schemas'

export const convertIdOp = defineOperation({
  method: 'GET',
  path: '/directory/convertid/{id}',
  operationId: 'convertDirectoryId',
  tag: 'Directory',
  summary: 'Convert an Entra object ID to its SID, or a SID to its object ID',
  description: 'The direction is chosen from the input: a GUID becomes `S-1-12-1-a-b-c-d`, such a SID becomes the GUID. An invalid ID is a 400 saying what is wrong.',
  params: ConvertIdParams,
  success: { description: 'The converted ID', schema: ConvertIdResult },
  cacheControl: 'public, max-age=86400, immutable',
})

export const convertIdsOp = defineOperation({
  method: 'POST',
  path: '/directory/convertid',
  operationId: 'convertDirectoryIds',
  tag: 'Directory',
  summary: 'Convert up to 100 object IDs and SIDs at once',
  description: 'Each item is converted independently: an invalid item gets its own `error` and the valid ones are still converted.',
  body: ConvertIdBatchBody,
  success: { description: 'Per-item results, in input order', schema: ConvertIdBatchResult },
})

export const directoryOperations = [convertIdOp, convertIdsOp]

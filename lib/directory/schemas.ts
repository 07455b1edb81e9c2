import { z } from 'zod'
import { Support } from '@/lib/support'

export const ConvertDirection = z.enum(['objectIdToSid', 'sidToObjectId'])

export const ConvertIdParams = z.object({
  id: z.string().min(1).max(200).meta({
    description: 'An Entra object ID (GUID) or its SID (`S-1-12-1-a-b-c-d`)',
    examples: ['e06e3596-82c0-4f31-ac5a-439a308e3dc2'],
  }),
})

export const ConvertIdResult = z
  .object({
    originalId: z.string(),
    returnId: z.string(),
    convertDirection: ConvertDirection,
    support: Support,
  })
  .meta({ id: 'ConvertIdResult' })
export type ConvertIdResult = z.infer<typeof ConvertIdResult>

export const ConvertIdBatchBody = z
  .object({
    ids: z.array(z.string().max(200)).min(1).max(100).meta({ description: 'Object IDs and/or SIDs, at most 100' }),
  })
  .strict()
  .meta({ id: 'ConvertIdBatchRequest' })

export const ConvertIdBatchItem = z
  .object({
    originalId: z.string(),
    returnId: z.string().nullable(),
    convertDirection: ConvertDirection.nullable(),
    error: z.string().nullable().meta({ description: 'Why this id could not be converted; null on success' }),
  })
  .meta({ id: 'ConvertIdBatchItem' })

export const ConvertIdBatchResult = z
  .object({ results: z.array(ConvertIdBatchItem), support: Support })
  .meta({ id: 'ConvertIdBatchResult' })
export type ConvertIdBatchResult = z.infer<typeof ConvertIdBatchResult>

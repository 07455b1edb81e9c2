import { defineOperation } from '@/lib/http/operation'
import { GenerateGuidQuery, GuidList, TicksQuery, TicksResult } from '@/lib/generate/schemas'

export const generateGuidsOp = defineOperation({
  method: 'GET',
  path: '/generate/guid',
  operationId: 'generateGuids',
  tag: 'Generator',
  summary: 'Generate GUIDs',
  description: 'Random (v4) or time-ordered (v7) GUIDs in a .NET format. Out-of-range input is a 400 naming the parameter.',
  query: GenerateGuidQuery,
  success: { description: 'The generated GUIDs', schema: GuidList },
})

export const convertTicksOp = defineOperation({
  method: 'GET',
  path: '/generate/timestamp/ticks',
  operationId: 'convertTimestampTicks',
  tag: 'Generator',
  summary: 'Current time, or a given instant, as .NET ticks (and back)',
  description: 'Without parameters: now. `dateTime` converts that instant to ticks; `ticks` converts ticks back to a date-time (truncated to milliseconds).',
  query: TicksQuery,
  success: { description: 'The instant and its ticks', schema: TicksResult },
})

export const generateOperations = [generateGuidsOp, convertTicksOp]

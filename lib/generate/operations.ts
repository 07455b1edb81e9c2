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
  examples: [
    { name: 'three', summary: 'Three random GUIDs', query: { count: '3' }, varies: ['/guids'] },
    {
      name: 'timeOrdered',
      summary: 'Time-ordered GUIDs, braces, upper case',
      query: { count: '2', version: '7', format: 'B', uppercase: 'true' },
      varies: ['/guids'],
    },
    { name: 'tooMany', summary: 'More than 500', query: { count: '501' } },
  ],
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
  examples: [
    { name: 'fromDateTime', summary: 'An instant to ticks', query: { dateTime: '2025-01-01T00:00:00Z' } },
    { name: 'fromTicks', summary: 'Ticks to an instant', query: { ticks: '638712864000000000' } },
    { name: 'notADate', summary: 'A dateTime that is not ISO 8601', query: { dateTime: 'yesterday' } },
  ],
})

export const generateOperations = [generateGuidsOp, convertTicksOp]

import { z } from 'zod'
import { queryBoolean } from '@/lib/http/query'

export const GuidFormat = z.enum(['D', 'N', 'B', 'P']).meta({
  description: '.NET format: D `xxxxxxxx-xxxx-…` (default), N 32 digits, B `{…}`, P `(…)`',
})

export const GenerateGuidQuery = z
  .object({
    count: z.coerce.number().int().min(1).max(500).default(1).meta({ description: 'How many GUIDs, 1–500' }),
    numberOfGuids: z.coerce.number().int().min(1).max(500).optional().meta({
      description: 'Deprecated alias of `count` kept for existing clients',
      deprecated: true,
    }),
    version: z.enum(['4', '7']).default('4').meta({ description: 'UUID version: 4 (random) or 7 (time-ordered)' }),
    format: z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), GuidFormat.default('D')),
    uppercase: queryBoolean('Upper-case hex digits').default(false),
  })
  .strict()

export const GuidList = z
  .object({
    version: z.union([z.literal(4), z.literal(7)]),
    format: GuidFormat,
    count: z.number().int(),
    guids: z.array(z.string()),
  })
  .meta({ id: 'GuidList' })
export type GuidList = z.infer<typeof GuidList>

const TICKS = /^\d{1,19}$/

export const TicksQuery = z
  .object({
    dateTime: z
      .union([z.iso.datetime({ offset: true }), z.iso.date()])
      .optional()
      .meta({ description: 'ISO 8601 instant (or date, taken as 00:00 UTC) to convert; default now' }),
    ticks: z
      .string()
      .regex(TICKS, 'must be a whole number of 100-ns ticks')
      .optional()
      .meta({ description: '.NET ticks to convert back to a date-time (0 … 3155378975999999999)' }),
  })
  .strict()
  .refine((q) => !(q.dateTime && q.ticks), { message: 'give either dateTime or ticks, not both' })

export const TicksResult = z
  .object({
    dateTime: z.iso.datetime().meta({ description: 'The instant in UTC, ISO 8601 with millisecond precision' }),
    ticks: z.string().meta({
      description: '.NET ticks (100-ns intervals since 0001-01-01T00:00:00Z). A string because it exceeds 2^53.',
      examples: ['639000000000000000'],
    }),
    unixMilliseconds: z.number().int(),
  })
  .meta({ id: 'TicksResult' })
export type TicksResult = z.infer<typeof TicksResult>

import { z } from 'zod'

export const HealthCheck = z
  .object({
    status: z.enum(['ok', 'down']),
    required: z.boolean().meta({ description: 'A required dependency being down makes the service answer 503' }),
    latencyMs: z.number().nullable(),
    detail: z.string(),
  })
  .meta({ id: 'HealthCheck' })

export const HealthResult = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({ description: '`ok` when every dependency answered, `degraded` otherwise' }),
    version: z.string().meta({ examples: ['1.1.0'] }),
    uptimeSeconds: z.number(),
    time: z.iso.datetime(),
    checks: z.record(z.string(), HealthCheck).meta({ description: 'Per dependency: the rate-limit store, and the database when configured' }),
  })
  .meta({ id: 'HealthResult' })
export type HealthResult = z.infer<typeof HealthResult>
export type HealthCheck = z.infer<typeof HealthCheck>

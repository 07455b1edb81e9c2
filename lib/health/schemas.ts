import { z } from 'zod'

export const HealthQuery = z.object({
  probe: z
    .enum(['ready', 'live'])
    .optional()
    .meta({
      description:
        '`ready` (default): check every dependency; 503 only while the process is shutting down or a required dependency is down. `live`: no dependency checks, 200 as long as the process answers.',
    }),
})

export const BreakerState = z
  .object({
    state: z.enum(['closed', 'open']).meta({ description: '`open`: the dependency kept failing; it is not called until a background probe answers' }),
    failures: z.number().int().meta({ description: 'Consecutive failures while closed' }),
    opened: z.number().int().meta({ description: 'Times the circuit opened since start' }),
    nextProbeInMs: z.number().nullable(),
  })
  .meta({ id: 'BreakerState' })

export const HealthCheck = z
  .object({
    status: z.enum(['ok', 'down']),
    required: z.boolean().meta({ description: 'A required dependency being down makes the service answer 503' }),
    latencyMs: z.number().nullable(),
    detail: z.string(),
    breaker: BreakerState.optional(),
  })
  .meta({ id: 'HealthCheck' })

export const HealthResult = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({ description: '`ok` when every dependency answered, `degraded` otherwise (the service still answers)' }),
    version: z.string().meta({ examples: ['1.1.0'] }),
    uptimeSeconds: z.number(),
    time: z.iso.datetime(),
    checks: z.record(z.string(), HealthCheck).meta({ description: 'Per dependency: the rate-limit store, the database, the request log. Empty for `probe=live`.' }),
  })
  .meta({ id: 'HealthResult' })
export type HealthResult = z.infer<typeof HealthResult>
export type HealthCheck = z.infer<typeof HealthCheck>

import { z } from 'zod'

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/

export const PolicyCategory = z
  .enum(['legal', 'privacy', 'conduct', 'security', 'accessibility'])
  .meta({ id: 'PolicyCategory', description: 'What area the policy governs' })

export const Policy = z
  .object({
    slug: z
      .string()
      .regex(SLUG)
      .meta({ description: 'Stable identifier', examples: ['privacy-policy'] }),
    title: z.string().min(1),
    summary: z.string().min(1).meta({ description: 'What the policy covers, in a sentence or two' }),
    category: PolicyCategory,
    version: z
      .string()
      .min(1)
      .meta({ description: 'Version of the policy text', examples: ['3.0'] }),
    lastUpdated: z.iso.date().meta({ description: 'Date the current version took effect (YYYY-MM-DD)' }),
    url: z.url({ protocol: /^https$/ }).meta({ description: 'Where the full text is published' }),
  })
  .meta({ id: 'Policy' })
export type Policy = z.infer<typeof Policy>

export const PolicyList = z
  .object({
    count: z.number().int(),
    policies: z.array(Policy),
  })
  .meta({ id: 'PolicyList', description: 'Every policy applied across the platform, ordered by slug' })
export type PolicyList = z.infer<typeof PolicyList>

export const PolicyParams = z.object({
  slug: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.string().regex(SLUG, 'must be a policy slug: letters, digits and hyphens'))
    .meta({ description: 'Policy slug', examples: ['privacy-policy'], override: { type: 'string', pattern: SLUG.source } }),
})

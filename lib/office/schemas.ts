import { z } from 'zod'

// ---- inputs ----

// The spec fixes dryRun as the string 'true' or 'false'; anything else is refused rather than
// guessed, because guessing wrong on the deduplicate operation deletes posts.
const dryRunParam = (fallback: 'true' | 'false', description: string) =>
  z
    .enum(['true', 'false'], { error: "must be 'true' or 'false'" })
    .default(fallback)
    .transform((v) => v === 'true')
    .meta({ description, override: { type: 'string', enum: ['true', 'false'], default: fallback } })

export const DeduplicateQuery = z.object({ dryRun: dryRunParam('true', "Default 'true': only report duplicates. 'false': delete them.") }).strict()
export type DeduplicateQuery = z.infer<typeof DeduplicateQuery>

export const PublishQuery = z
  .object({
    dryRun: dryRunParam('false', "'true': only report what would be published. Default 'false': publish."),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(500)
      .default(50)
      .meta({ description: 'Most posts created in one run (1–500, default 50); the rest are left for the next run' }),
  })
  .strict()
export type PublishQuery = z.infer<typeof PublishQuery>

// ---- Microsoft identity platform and Graph payloads ----

export const GraphTokenPayload = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive(),
  token_type: z.string().optional(),
})

// Graph documents enum values in PascalCase ("StayInformed", "Html") while live data is camelCase
// ("planForChange", "html"); we compare lower-cased.
const lowered = z.string().transform((s) => s.toLowerCase())

export const GraphMessage = z.object({
  id: z.string(),
  title: z.string(),
  category: lowered.nullish(),
  severity: lowered.nullish(),
  tags: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  services: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
  isMajorChange: z.boolean().nullish(),
  startDateTime: z.string().nullish(),
  lastModifiedDateTime: z.string().nullish(),
  actionRequiredByDateTime: z.string().nullish(),
  details: z
    .array(z.object({ name: z.string().nullish(), value: z.string().nullish() }))
    .nullish()
    .transform((v) => v ?? []),
  body: z.object({ contentType: lowered.nullish(), content: z.string().nullish() }).nullish(),
})
export type GraphMessage = z.infer<typeof GraphMessage>

export const GraphMessagesPage = z.object({
  value: z.array(GraphMessage),
  '@odata.nextLink': z.string().nullish(),
})

// ---- Ghost Admin API payloads ----

export const GhostAdminPost = z.object({
  id: z.string(),
  slug: z.string(),
  title: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  url: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
})
export type GhostAdminPost = z.infer<typeof GhostAdminPost>

export const GhostAdminPostsPayload = z.object({
  posts: z.array(GhostAdminPost),
  meta: z.object({ pagination: z.object({ page: z.number(), pages: z.number(), next: z.number().nullable() }).partial().optional() }).optional(),
})

// ---- our responses ----

export const DuplicateEntry = z
  .object({
    id: z.string().meta({ description: 'Ghost post id' }),
    slug: z.string().meta({ examples: ['mc123456-2'] }),
    title: z.string(),
    url: z.string(),
    deleted: z.boolean().meta({ description: 'Whether this run deleted it (always false in a dry run)' }),
  })
  .meta({ id: 'DuplicateEntry' })
export type DuplicateEntry = z.infer<typeof DuplicateEntry>

export const DeduplicationReport = z
  .object({
    message: z.string(),
    dryRun: z.boolean(),
    scanned: z.number().int().meta({ description: 'Posts examined on the blog' }),
    duplicatesFound: z.number().int(),
    deleted: z.number().int(),
    failed: z.number().int().meta({ description: 'Duplicates whose deletion failed (the run continues past them)' }),
    duplicates: z.array(DuplicateEntry),
  })
  .meta({ id: 'DeduplicationReport' })
export type DeduplicationReport = z.infer<typeof DeduplicationReport>

export const PublishOutcome = z.enum(['published', 'skipped', 'failed', 'pending']).meta({
  description:
    '`published` by this run; `skipped` because it is already on the blog (or has no Message Center number); `failed` (see `reason`); `pending`: not on the blog yet and left for a later run (dry run, or beyond `limit`).',
})

export const PublishEntry = z
  .object({
    messageId: z.string().meta({ examples: ['MC172851'] }),
    slug: z
      .string()
      .nullable()
      .meta({ examples: ['mc172851'] }),
    title: z.string(),
    outcome: PublishOutcome,
    reason: z.string().nullable(),
    postId: z.string().nullable().meta({ description: 'Id of the created Ghost post' }),
    url: z.string().nullable().meta({ description: 'URL of the created or existing post' }),
  })
  .meta({ id: 'PublishEntry' })
export type PublishEntry = z.infer<typeof PublishEntry>

export const PublishReport = z
  .object({
    message: z.string(),
    dryRun: z.boolean(),
    scanned: z.number().int().meta({ description: 'Message Center messages read from Microsoft Graph' }),
    published: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    pending: z.number().int().meta({ description: 'Messages not on the blog yet and left for a later run' }),
    messages: z.array(PublishEntry),
  })
  .meta({ id: 'PublishReport' })
export type PublishReport = z.infer<typeof PublishReport>

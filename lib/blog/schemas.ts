import { z } from 'zod'

// Our blog DTOs keep Ghost's snake_case field names: existing dashboard clients read them that way
// (`next_page`, `published_at`), the author fields included.

/** Ghost slugs are lower-case ASCII words joined by hyphens; ids are 24 hex digits (also matched). */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,189}[a-z0-9])?$/

const slugParam = (description: string, example: string) =>
  z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.string().regex(SLUG, 'must be a slug: letters, digits and hyphens, at most 191 characters'))
    .meta({ description, examples: [example], override: { type: 'string', pattern: SLUG.source } })

// ---- inputs ----

export const BlogPageQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(10_000).default(1).meta({ description: 'Page number, from 1' }),
    limit: z.coerce.number().int().min(1).max(100).default(15).meta({ description: 'Posts per page, 1–100 (default 15)' }),
  })
  .strict()
export type BlogPageQuery = z.infer<typeof BlogPageQuery>

export const BlogPostParams = z.object({
  idOrSlug: slugParam('The post id (24 hex digits) or its slug', 'welcome-short'),
})

export const BlogTagParams = z.object({
  tag: slugParam('Tag slug, e.g. the Message Center tag', 'm365-message-center'),
})

// ---- Ghost Content API payloads (only the fields we read; extra fields are ignored) ----

const nullableString = z
  .string()
  .nullish()
  .transform((v) => v ?? null)

export const GhostSettingsPayload = z.object({
  settings: z.object({
    title: nullableString,
    description: nullableString,
    logo: nullableString,
    icon: nullableString,
    // Absent from v2-era answers.
    url: nullableString,
  }),
})

const GhostRef = z.object({ id: z.string(), name: z.string(), slug: z.string() })

export const GhostPost = z.object({
  id: z.string(),
  uuid: nullableString,
  title: z.string(),
  slug: z.string(),
  html: nullableString,
  excerpt: nullableString,
  custom_excerpt: nullableString,
  feature_image: nullableString,
  featured: z
    .boolean()
    .nullish()
    .transform((v) => v ?? false),
  visibility: nullableString,
  created_at: nullableString,
  updated_at: nullableString,
  published_at: nullableString,
  url: z.string(),
  reading_time: z
    .number()
    .nullish()
    .transform((v) => v ?? null),
  tags: z
    .array(GhostRef)
    .nullish()
    .transform((v) => v ?? []),
  authors: z
    .array(GhostRef)
    .nullish()
    .transform((v) => v ?? []),
})
export type GhostPost = z.infer<typeof GhostPost>

export const GhostPagination = z
  .object({
    page: z.number(),
    limit: z.union([z.number(), z.literal('all')]),
    pages: z.number(),
    total: z.number(),
    next: z.number().nullable(),
  })
  .partial()

export const GhostPostsPayload = z.object({
  posts: z.array(GhostPost),
  meta: z.object({ pagination: GhostPagination.optional() }).optional(),
})

export const AUTHOR_OPTIONAL_FIELDS = [
  'profile_image',
  'cover_image',
  'bio',
  'website',
  'location',
  'facebook',
  'twitter',
  'meta_title',
  'meta_description',
  'threads',
  'bluesky',
  'mastodon',
  'tiktok',
  'youtube',
  'instagram',
  'linkedin',
] as const

// Older Ghost versions lack the social fields after `twitter`; absent and null both become null.
const authorOptional = Object.fromEntries(AUTHOR_OPTIONAL_FIELDS.map((f) => [f, nullableString])) as Record<
  (typeof AUTHOR_OPTIONAL_FIELDS)[number],
  typeof nullableString
>

export const GhostAuthor = z.object({ id: z.string(), name: z.string(), slug: z.string(), url: z.string(), ...authorOptional })

export const GhostAuthorsPayload = z.object({
  authors: z.array(GhostAuthor),
  meta: z.object({ pagination: GhostPagination.optional() }).optional(),
})

// ---- our responses ----

const optionalText = z.string().nullable()

export const BlogInfo = z
  .object({
    title: optionalText.meta({ description: 'Blog title' }),
    description: optionalText,
    logo: optionalText.meta({ description: 'Logo image URL' }),
    icon: optionalText.meta({ description: 'Icon (favicon) URL' }),
    url: optionalText.meta({ description: 'Public URL of the blog' }),
  })
  .meta({ id: 'BlogInfo', description: 'Blog metadata from Ghost settings' })
export type BlogInfo = z.infer<typeof BlogInfo>

const BlogRef = z.object({ id: z.string(), name: z.string(), slug: z.string() })

export const BlogPostSummary = z
  .object({
    id: z.string(),
    uuid: optionalText,
    title: z.string(),
    slug: z.string(),
    excerpt: optionalText.meta({ description: 'The custom excerpt when set, else the start of the text' }),
    feature_image: optionalText,
    featured: z.boolean(),
    visibility: optionalText.meta({ description: '`public`, `members`, `paid` or `tiers`' }),
    created_at: optionalText,
    updated_at: optionalText,
    published_at: optionalText,
    url: z.string().meta({ description: 'Public URL of the post' }),
    reading_time: z.number().nullable().meta({ description: 'Estimated minutes to read' }),
    tags: z.array(BlogRef),
    authors: z.array(BlogRef),
  })
  .meta({ id: 'BlogPostSummary' })
export type BlogPostSummary = z.infer<typeof BlogPostSummary>

export const BlogPost = BlogPostSummary.extend({
  html: optionalText.meta({ description: 'The post body as HTML' }),
}).meta({ id: 'BlogPost' })
export type BlogPost = z.infer<typeof BlogPost>

export const BlogPostList = z
  .object({
    posts: z.array(BlogPostSummary),
    next_page: z.url().nullable().meta({ description: 'URL of the next page of this listing; null on the last page' }),
    pagination: z.object({
      page: z.number().int(),
      limit: z.number().int(),
      pages: z.number().int().nullable(),
      total: z.number().int().nullable(),
    }),
  })
  .meta({ id: 'BlogPostList' })
export type BlogPostList = z.infer<typeof BlogPostList>

const socialText = z.string().nullable().optional()
export const BlogAuthor = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    url: z.string(),
    ...(Object.fromEntries(AUTHOR_OPTIONAL_FIELDS.map((f) => [f, socialText])) as Record<(typeof AUTHOR_OPTIONAL_FIELDS)[number], typeof socialText>),
  })
  .meta({ id: 'BlogAuthor', description: 'A blog author; optional fields the blog does not know are null.' })
export type BlogAuthor = z.infer<typeof BlogAuthor>

export const BlogAuthorList = z.object({ authors: z.array(BlogAuthor) }).meta({ id: 'BlogAuthorList' })
export type BlogAuthorList = z.infer<typeof BlogAuthorList>

import { z } from 'zod'
import { handleSyntaxProblem } from '@/lib/pds/handle'

// Inputs, outputs and upstream payloads of the /pds group. The same field schemas feed route()
// validation, the OpenAPI document and the MCP tools' input and output schemas.

// ---------------------------------------------------------------- shared fields

export const FIRST_HEATMAP_YEAR = 2020
export const currentUtcYear = () => new Date().getUTCFullYear()

/** A handle as typed by a caller; syntax is checked by the refinement (400 naming the rule). */
export const PdsHandle = z
  .string()
  .min(1)
  .max(300)
  .superRefine((value, ctx) => {
    const problem = handleSyntaxProblem(value)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })
  .meta({
    description: 'A full handle such as `alice.example.com` (no `@`); compared in lower case',
    examples: ['alice.bsky.social'],
  })

const DID_PLC = /^did:plc:[a-z2-7]{24}$/
// atproto supports host-level did:web only (no path segments); a port is percent-encoded.
const DID_WEB = /^did:web:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?:%3a\d{1,5})?$/i

export const Did = z
  .string()
  .max(2048)
  .refine((v) => DID_PLC.test(v) || DID_WEB.test(v), {
    message: 'must be a did:plc: DID (24 base32 characters a–z, 2–7) or a did:web: DID (a host name)',
  })
  .meta({ description: 'An account DID, `did:plc:…` or `did:web:…`', examples: ['did:plc:ewvi7nxzyoun6zhxrhs64oiz'] })

/** Integer year from 2020 to the current UTC year; checked at call time so a long-running server follows the calendar. */
export const HeatmapYear = z
  .int()
  .min(FIRST_HEATMAP_YEAR)
  .refine((y) => y <= currentUtcYear(), { message: `must be between ${FIRST_HEATMAP_YEAR} and the current year` })
  .meta({ description: `Calendar year (UTC), ${FIRST_HEATMAP_YEAR} to the current year`, examples: [2026] })

const IsoDay = z.iso.date()

// ---------------------------------------------------------------- inputs

export const VerifyHandleQuery = z.object({ handle: PdsHandle }).strict()

export const HeatmapQuery = z
  .object({
    forYear: z.coerce
      .number()
      .pipe(HeatmapYear)
      .optional()
      .meta({
        description: `Year to count, ${FIRST_HEATMAP_YEAR} to the current year (UTC); default the current year`,
        override: { type: 'integer', minimum: FIRST_HEATMAP_YEAR },
      }),
  })
  .strict()

export const BlobUsageParams = z.object({ did: Did })

export const UptimeQuery = z
  .object({
    startDate: IsoDay.optional().meta({ description: 'First day (YYYY-MM-DD, UTC); omitted: since the monitor was created' }),
    endDate: IsoDay.optional().meta({ description: 'Last day (YYYY-MM-DD, UTC); omitted: today' }),
  })
  .strict()
  .refine((q) => !q.startDate || !q.endDate || q.startDate <= q.endDate, {
    message: 'startDate must not be after endDate',
    path: ['startDate'],
  })
export type UptimeQuery = z.infer<typeof UptimeQuery>

// ---------------------------------------------------------------- outputs

const RepoStatus = z.enum(['takendown', 'suspended', 'deleted', 'deactivated', 'desynchronized', 'throttled'])

export const Repo = z
  .object({
    did: z.string().meta({ description: 'Account DID' }),
    head: z.string().meta({ description: 'CID of the current repository commit' }),
    rev: z.string().meta({ description: 'Revision (TID) of the current commit' }),
    active: z.boolean().meta({ description: 'false when the account is deactivated, suspended, taken down or deleted' }),
    status: z.string().nullable().meta({ description: 'Why the account is inactive (`deactivated`, `takendown`, …); null when active' }),
  })
  .meta({ id: 'PdsRepo' })

export const ReposResult = z
  .object({
    total: z.int().nonnegative(),
    active: z.int().nonnegative(),
    inactive: z.int().nonnegative(),
    repos: z.array(Repo),
  })
  .meta({ id: 'PdsReposResult', description: 'Every repository hosted on the PDS (all pages of listRepos)' })
export type ReposResult = z.infer<typeof ReposResult>

export const HandleAvailability = z
  .object({
    handle: z.string().meta({ description: 'The handle checked, in lower case' }),
    available: z.boolean(),
    reason: z.string().nullable().meta({ description: 'Why the handle is not available; null when it is' }),
    did: z.string().nullable().meta({ description: 'The DID the handle resolves to; null when it resolves to none' }),
    verified: z.boolean().nullable().meta({
      description: 'Whether the DID document lists the handle back (`alsoKnownAs`); null when not checked (no DID, did:web, or the directory was unreachable)',
    }),
  })
  .meta({ id: 'PdsHandleAvailability' })
export type HandleAvailability = z.infer<typeof HandleAvailability>

export const Heatmap = z.record(z.string().regex(/^\d{4}-\d{2}-\d{2}$/), z.int().nonnegative()).meta({
  id: 'PdsHeatmap',
  description: 'Posts per UTC day (`YYYY-MM-DD` → count), only days with posts, in date order',
  examples: [{ '2026-01-01': 12, '2026-01-02': 3 }],
})
export type Heatmap = z.infer<typeof Heatmap>

export const BlobUsage = z
  .object({
    did: z.string().nullable().meta({ description: 'The account counted; null for the whole PDS' }),
    usageBytes: z.int().nonnegative().meta({
      description: 'Total size of the stored blobs in bytes. A number (the reference API sent a string); exact up to 2^53 bytes',
    }),
    blobCount: z.int().nonnegative(),
    accountCount: z.int().nonnegative().meta({ description: 'Accounts whose blobs were counted (1 for a single account)' }),
  })
  .meta({ id: 'PdsBlobUsage', description: 'Blob storage usage of one account or of every active account' })
export type BlobUsage = z.infer<typeof BlobUsage>

export const UptimeStats = z
  .object({
    availability: z.number().meta({ description: 'Percentage of the period the PDS was up, e.g. 99.98' }),
    total_downtime: z.number().nonnegative().meta({ description: 'Seconds' }),
    number_of_incidents: z.int().nonnegative(),
    longest_incident: z.number().nonnegative().meta({ description: 'Seconds' }),
    average_incident: z.number().nonnegative().meta({ description: 'Seconds' }),
  })
  .meta({ id: 'PdsUptimeStats', description: "BetterStack's SLA summary for the PDS monitor; field names kept from the reference API" })
export type UptimeStats = z.infer<typeof UptimeStats>

export const PdsServerInfo = z
  .object({
    did: z.string(),
    availableUserDomains: z.array(z.string()),
    inviteCodeRequired: z.boolean(),
    phoneVerificationRequired: z.boolean(),
    blobUploadLimit: z.int().nullable().meta({ description: 'Largest accepted blob, bytes; null when not announced' }),
    links: z.object({ privacyPolicy: z.string().nullable(), termsOfService: z.string().nullable() }),
    contactEmail: z.string().nullable(),
  })
  .meta({ id: 'PdsServerInfo' })
export type PdsServerInfo = z.infer<typeof PdsServerInfo>

export const PdsHealth = z
  .object({
    status: z.enum(['ok', 'down']).meta({ description: '`down` when the PDS reports itself unhealthy' }),
    version: z.string().nullable().meta({ description: 'PDS software version from `/xrpc/_health`' }),
    error: z.string().nullable(),
    latencyMs: z.number(),
    server: PdsServerInfo,
  })
  .meta({ id: 'PdsHealth' })
export type PdsHealth = z.infer<typeof PdsHealth>

// ---------------------------------------------------------------- upstream payloads

export const XrpcErrorBody = z.object({ error: z.string(), message: z.string().optional() })

export const XrpcHealth = z.object({ version: z.string().optional(), error: z.string().optional() })

export const XrpcDescribeServer = z.object({
  did: z.string(),
  availableUserDomains: z.array(z.string()),
  inviteCodeRequired: z.boolean().optional(),
  phoneVerificationRequired: z.boolean().optional(),
  blobUploadLimit: z.number().int().optional(),
  links: z.object({ privacyPolicy: z.string().optional(), termsOfService: z.string().optional() }).optional(),
  contact: z.object({ email: z.string().optional() }).optional(),
})
export type XrpcDescribeServer = z.infer<typeof XrpcDescribeServer>

export const XrpcListRepos = z.object({
  cursor: z.string().optional(),
  repos: z.array(z.object({ did: z.string(), head: z.string(), rev: z.string(), active: z.boolean().optional(), status: z.string().optional() })),
})
export type XrpcListRepos = z.infer<typeof XrpcListRepos>

export const XrpcListRecords = z.object({
  cursor: z.string().optional(),
  records: z.array(z.object({ uri: z.string(), cid: z.string().optional(), value: z.unknown() })),
})
export type XrpcListRecords = z.infer<typeof XrpcListRecords>

export const XrpcListBlobs = z.object({ cursor: z.string().optional(), cids: z.array(z.string()) })

export const XrpcDescribeRepo = z.object({ collections: z.array(z.string()) })

export const XrpcResolveHandle = z.object({ did: z.string() })
export type XrpcResolveHandle = z.infer<typeof XrpcResolveHandle>

export const DidDocument = z.object({ id: z.string(), alsoKnownAs: z.array(z.string()).nullish() })

export const BetterStackSla = z.object({
  data: z.object({
    id: z.string().optional(),
    type: z.string().optional(),
    attributes: z.object({
      availability: z.number(),
      total_downtime: z.number(),
      number_of_incidents: z.number().int(),
      longest_incident: z.number(),
      average_incident: z.number(),
    }),
  }),
})
export type BetterStackSla = z.infer<typeof BetterStackSla>

// BetterStack's `errors` is a string on 400 (not an array, despite the name); accept both.
export const BetterStackError = z.object({ errors: z.union([z.string(), z.array(z.unknown())]) })

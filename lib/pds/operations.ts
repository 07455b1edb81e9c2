import { defineOperation } from '@/lib/http/operation'
import {
  BlobUsage,
  BlobUsageParams,
  HandleAvailability,
  Heatmap,
  HeatmapQuery,
  PdsHealth,
  ReposResult,
  UptimeQuery,
  UptimeStats,
  VerifyHandleQuery,
} from '@/lib/pds/schemas'

// Paths kept from the reference API so existing dashboards keep working.

const NOT_CONFIGURED = 'Answers 503 `not_configured` when the server has no `PDS_URL`.'

export const listPdsReposOp = defineOperation({
  method: 'GET',
  path: '/pds/repos',
  operationId: 'listPdsRepos',
  tag: 'Social platform',
  summary: 'Repositories hosted on the PDS',
  description: `Every repository, read through all pages of \`com.atproto.sync.listRepos\`, with active and inactive counts. Cached for 60 s. ${NOT_CONFIGURED}`,
  success: { description: 'All repositories and their counts', schema: ReposResult },
  examples: [{ name: 'all', summary: 'Every repository, one of them deactivated' }],
  errors: ['upstream_failed', 'not_configured', 'upstream_timeout'],
  cacheControl: 'public, max-age=60',
})

export const verifyPdsHandleOp = defineOperation({
  method: 'GET',
  path: '/pds/verifyHandle',
  operationId: 'verifyPdsHandle',
  tag: 'Social platform',
  summary: 'Check whether a handle is available',
  description: `Checks the atproto handle syntax (lower-cased), then the PDS's rules for its own user domains from \`describeServer\` (a single name of 3–18 characters, not reserved), then resolves the handle on the PDS. A malformed handle, or one breaking a service-domain length rule, is a 400 naming the rule. A reserved or already resolving handle is \`available: false\` with the reason. The PDS applies further checks (such as its full reserved list and content filter) at sign-up. ${NOT_CONFIGURED}`,
  query: VerifyHandleQuery,
  success: { description: 'Availability of the handle', schema: HandleAvailability },
  examples: [
    { name: 'available', summary: 'A free handle on the service domain', query: { handle: 'meadowlark.bsky.social' } },
    { name: 'taken', summary: 'A handle registered on this PDS', query: { handle: 'greenground.bsky.social' } },
    { name: 'tooShort', summary: 'A name shorter than the service domain allows', query: { handle: 'ab.bsky.social' } },
  ],
  errors: ['upstream_failed', 'not_configured', 'upstream_timeout'],
})

export const getPdsHeatmapOp = defineOperation({
  method: 'GET',
  path: '/pds/blueskyHeatmap',
  operationId: 'getPdsPostingHeatmap',
  tag: 'Social platform',
  summary: 'Posts per day across the PDS for a year',
  description: `Counts the \`app.bsky.feed.post\` records of every active account by the UTC day of their \`createdAt\`. Posts dated in the future are left out, and so are posts written to the repository before the year began. Cached for 15 minutes (past years: 6 hours). ${NOT_CONFIGURED}`,
  query: HeatmapQuery,
  success: { description: 'Posts per day (only days with posts)', schema: Heatmap },
  examples: [
    { name: 'year', summary: 'Posts per day in 2025', query: { forYear: '2025' } },
    { name: 'tooEarly', summary: 'A year before 2020', query: { forYear: '2019' } },
  ],
  errors: ['upstream_failed', 'not_configured', 'upstream_timeout'],
  cacheControl: 'public, max-age=900',
})

const BLOB_DESCRIPTION =
  'Sizes are summed from the blob references in the account records, and from `getBlob` for blobs no record describes. `usageBytes` is a number (the reference API sent it as a string).'

export const getPdsBlobUsageOp = defineOperation({
  method: 'GET',
  path: '/pds/blobStorageUsageBytes',
  operationId: 'getPdsBlobUsage',
  tag: 'Social platform',
  summary: 'Blob storage used by all active accounts',
  description: `${BLOB_DESCRIPTION} Blobs of inactive accounts cannot be listed over the public API and are not counted. Cached for 10 minutes. ${NOT_CONFIGURED}`,
  success: { description: 'Total blob usage', schema: BlobUsage },
  examples: [{ name: 'all', summary: 'Every active account' }],
  errors: ['upstream_failed', 'not_configured', 'upstream_timeout'],
  cacheControl: 'public, max-age=600',
})

export const getPdsBlobStorageStatsOp = defineOperation({
  ...getPdsBlobUsageOp,
  path: '/pds/blobStorageStats',
  operationId: 'getPdsBlobStorageStats',
  deprecated: true,
  summary: 'Blob storage used by all active accounts (older path)',
  description: `The same answer as \`/pds/blobStorageUsageBytes\`, kept at the reference API's older path for existing clients. ${getPdsBlobUsageOp.description}`,
})

export const getPdsAccountBlobUsageOp = defineOperation({
  method: 'GET',
  path: '/pds/blobStorageUsageBytes/{did}',
  operationId: 'getPdsAccountBlobUsage',
  tag: 'Social platform',
  summary: 'Blob storage used by one account',
  description: `${BLOB_DESCRIPTION} 404 when the DID has no active account on this PDS. Cached for 10 minutes. ${NOT_CONFIGURED}`,
  params: BlobUsageParams,
  success: { description: 'Blob usage of the account', schema: BlobUsage },
  examples: [
    { name: 'account', summary: 'One account', params: { did: 'did:plc:ewvi7nxzyoun6zhxrhs64oiz' } },
    { name: 'notHere', summary: 'A DID with no account on this PDS', params: { did: 'did:plc:abcdefghijklmnopqrstuvwx' } },
    { name: 'notADid', summary: 'Not a DID', params: { did: 'alice.bsky.social' } },
  ],
  errors: ['not_found', 'upstream_failed', 'not_configured', 'upstream_timeout'],
  cacheControl: 'public, max-age=600',
})

export const getPdsUptimeOp = defineOperation({
  method: 'GET',
  path: '/pds/uptimeStats',
  operationId: 'getPdsUptimeStats',
  tag: 'Social platform',
  summary: 'Uptime of the PDS over a date range',
  description:
    "BetterStack's SLA summary of the PDS monitor; durations in seconds. Without dates: since the monitor was created. Cached for 10 minutes. Answers 503 `not_configured` when `BETTERSTACK_API_TOKEN` or `BETTERSTACK_MONITOR_ID` is not set.",
  query: UptimeQuery,
  success: { description: 'Availability and incidents', schema: UptimeStats },
  examples: [
    { name: 'year', summary: 'One year', query: { startDate: '2025-01-01', endDate: '2025-12-31' } },
    { name: 'reversed', summary: 'A range that ends before it starts', query: { startDate: '2025-12-31', endDate: '2025-01-01' } },
  ],
  errors: ['upstream_failed', 'not_configured', 'upstream_timeout'],
  cacheControl: 'public, max-age=600',
})

export const getPdsHealthOp = defineOperation({
  method: 'GET',
  path: '/pds/health',
  operationId: 'getPdsHealth',
  tag: 'Social platform',
  summary: 'PDS version and server description',
  description: `The PDS's own health report (\`/xrpc/_health\`: version, and \`status: down\` when it reports itself unhealthy) with its \`describeServer\` data. An unreachable PDS is a 502 or 504. ${NOT_CONFIGURED}`,
  success: { description: 'PDS health', schema: PdsHealth },
  examples: [{ name: 'up', summary: 'The PDS reports its version', varies: ['/latencyMs'] }],
  errors: ['upstream_failed', 'not_configured', 'upstream_timeout'],
})

export const pdsOperations = [
  listPdsReposOp,
  verifyPdsHandleOp,
  getPdsHeatmapOp,
  getPdsBlobUsageOp,
  getPdsBlobStorageStatsOp,
  getPdsAccountBlobUsageOp,
  getPdsUptimeOp,
  getPdsHealthOp,
]

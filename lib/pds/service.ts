import 'server-only'
import { config } from '@/lib/config'
import { AppError, describeZodError } from '@/lib/errors'
import { log } from '@/lib/log'
import { cached } from '@/lib/upstream/cache'
import { BLOB_FREE_COLLECTIONS, collectBlobSizes } from '@/lib/pds/blobs'
import { mapLimit } from '@/lib/pds/concurrency'
import { checkServiceDomain, handleSyntaxProblem, normalizeHandle } from '@/lib/pds/handle'
import { countPosts, reachedBeforeYear, toHeatmap } from '@/lib/pds/heatmap'
import {
  currentUtcYear,
  Did,
  HeatmapYear,
  type BlobUsage,
  type HandleAvailability,
  type Heatmap,
  type PdsHealth,
  type PdsServerInfo,
  type ReposResult,
  type UptimeQuery,
  type UptimeStats,
} from '@/lib/pds/schemas'
import { createPdsClient, fetchMonitorSla, fetchPlcHandles, REPO_UNAVAILABLE, XrpcError, type PdsClient } from '@/lib/pds/upstream'

// The /pds group's logic. Every function takes its PDS adapter as an optional last argument
// (default: the configured PDS), so the REST routes and the MCP tools call the same code in process.

/** Fan-out toward the PDS: its operators dislike crawlers, and one slow account must not starve the rest. */
export const PDS_CONCURRENCY = 4
const POST_COLLECTION = 'app.bsky.feed.post'
const MAX_PAGES = 10_000

const TTL = {
  repos: { ttlS: 60, staleS: 3600 },
  server: { ttlS: 600, staleS: 86_400 },
  heatmapCurrent: { ttlS: 900, staleS: 86_400 },
  heatmapPast: { ttlS: 6 * 3600, staleS: 7 * 86_400 },
  blobs: { ttlS: 600, staleS: 86_400 },
  uptime: { ttlS: 600, staleS: 3600 },
  plc: { ttlS: 600 },
}

export function configuredPds(): PdsClient {
  if (!config.PDS_URL)
    throw new AppError(
      'not_configured',
      'The social platform is not configured on this server: set PDS_URL to the base URL of the Bluesky PDS (e.g. https://pds.example.com).',
    )
  return createPdsClient(config.PDS_URL)
}

/** Follows a cursor to the end: until a page comes back empty or without a cursor. */
async function readAllPages<T>(
  what: string,
  fetchPage: (cursor?: string) => Promise<{ cursor?: string; items: T[] }>,
  onPage?: (items: T[]) => boolean,
): Promise<T[]> {
  const all: T[] = []
  let cursor: string | undefined
  // A short page does not mean the end: a server may cap `limit` below what we ask for.
  for (let page = 0; page < MAX_PAGES; page++) {
    const got = await fetchPage(cursor)
    all.push(...got.items)
    if (onPage?.(got.items) === false) return all
    if (got.items.length === 0 || !got.cursor) return all
    if (got.cursor === cursor) throw new AppError('upstream_failed', `PDS repeated the same ${what} cursor; stopped paging to avoid a loop.`)
    cursor = got.cursor
  }
  throw new AppError('upstream_failed', `PDS ${what} listing exceeded ${MAX_PAGES} pages; stopped paging.`)
}

async function listAllRepos(pds: PdsClient): Promise<ReposResult> {
  const raw = await readAllPages('repository', async (cursor) => {
    const page = await pds.listRepos(cursor)
    return { cursor: page.cursor, items: page.repos }
  })
  // The same DID on two pages (a listing that shifted while paging) is counted once.
  const byDid = new Map(raw.map((r) => [r.did, r]))
  const repos = [...byDid.values()].map((r) => {
    const active = r.active ?? true
    return { did: r.did, head: r.head, rev: r.rev, active, status: active ? null : (r.status ?? null) }
  })
  const active = repos.filter((r) => r.active).length
  return { total: repos.length, active, inactive: repos.length - active, repos }
}

// GET /api/pds/repos - every repository on the PDS with active/inactive counts
export async function getRepos(pds: PdsClient = configuredPds()): Promise<ReposResult> {
  return cached(`pds:repos:${pds.baseUrl}`, TTL.repos, () => listAllRepos(pds))
}

export async function getServerInfo(pds: PdsClient = configuredPds()): Promise<PdsServerInfo> {
  return cached(`pds:server:${pds.baseUrl}`, TTL.server, () => pds.describeServer())
}

/** The handles a DID's document claims (null: unknown DID); did:plc only, from the PLC directory. */
export type DidHandleLookup = (did: string) => Promise<string[] | null>

const plcHandles: DidHandleLookup = (did) => cached(`pds:plc:${config.PLC_URL}:${did}`, TTL.plc, () => fetchPlcHandles(config.PLC_URL, did))

/** Does the DID document list the handle back? null when it cannot be told. */
async function handleVerifiedBy(did: string, handle: string, lookup: DidHandleLookup): Promise<boolean | null> {
  if (!did.startsWith('did:plc:')) return null
  try {
    const handles = await lookup(did)
    return handles === null ? false : handles.includes(handle)
  } catch (error) {
    log.warn('PLC lookup failed', { did, error: error instanceof Error ? error.message : String(error) })
    return null
  }
}

// GET /api/pds/verifyHandle - whether a handle can still be registered
export async function verifyHandle(handle: string, pds: PdsClient = configuredPds(), didHandles: DidHandleLookup = plcHandles): Promise<HandleAvailability> {
  const problem = handleSyntaxProblem(handle)
  if (problem) throw new AppError('invalid_input', `handle: ${problem}`)
  const normalized = normalizeHandle(handle)
  const server = await getServerInfo(pds)
  const rules = checkServiceDomain(normalized, server.availableUserDomains)
  if (rules.invalid) throw new AppError('invalid_input', `handle: ${rules.invalid}`)
  if (rules.unavailable) return { handle: normalized, available: false, reason: rules.unavailable, did: null, verified: null }
  // Resolution, never the repo list: deactivated accounts keep their handles.
  const did = await pds.resolveHandle(normalized)
  if (!did) return { handle: normalized, available: true, reason: null, did: null, verified: null }
  return {
    handle: normalized,
    available: false,
    reason: rules.domain ? `already registered on this PDS (${did})` : `already in use: the domain points at ${did}`,
    did,
    verified: await handleVerifiedBy(did, normalized, didHandles),
  }
}

async function countAccountPosts(pds: PdsClient, did: string, year: number, now: number, counts: Map<string, number>) {
  try {
    await readAllPages(
      'post',
      async (cursor) => {
        const page = await pds.listRecords(did, POST_COLLECTION, cursor)
        return { cursor: page.cursor, items: page.records }
      },
      (records) => {
        countPosts(counts, records, year, now)
        return !reachedBeforeYear(records, year)
      },
    )
  } catch (error) {
    // An account deactivated or removed since the repo list was read has no posts to count.
    if (error instanceof XrpcError && REPO_UNAVAILABLE.has(error.error)) return
    throw error
  }
}

async function buildHeatmap(pds: PdsClient, year: number): Promise<Heatmap> {
  const now = Date.now()
  const { repos } = await getRepos(pds)
  const counts = new Map<string, number>()
  await mapLimit(
    repos.filter((r) => r.active),
    PDS_CONCURRENCY,
    (repo) => countAccountPosts(pds, repo.did, year, now, counts),
  )
  return toHeatmap(counts)
}

// GET /api/pds/blueskyHeatmap - posts per day across the PDS's active accounts
export async function getPostingHeatmap(year: number = currentUtcYear(), pds: PdsClient = configuredPds()): Promise<Heatmap> {
  const checked = HeatmapYear.safeParse(year)
  if (!checked.success) throw new AppError('invalid_input', describeZodError(checked.error, 'forYear'))
  const ttl = year === currentUtcYear() ? TTL.heatmapCurrent : TTL.heatmapPast
  return cached(`pds:heatmap:${pds.baseUrl}:${year}`, ttl, () => buildHeatmap(pds, year))
}

type AccountUsage = Pick<BlobUsage, 'usageBytes' | 'blobCount'>

async function computeAccountBlobUsage(pds: PdsClient, did: string): Promise<AccountUsage> {
  let cids: string[]
  try {
    cids = await readAllPages('blob', async (cursor) => {
      const page = await pds.listBlobs(did, cursor)
      return { cursor: page.cursor, items: page.cids }
    })
  } catch (error) {
    if (error instanceof XrpcError && error.error === 'RepoNotFound') throw new AppError('not_found', `No account ${did} on this PDS.`)
    if (error instanceof XrpcError && REPO_UNAVAILABLE.has(error.error))
      throw new AppError('not_found', `The account ${did} is not active on this PDS (${error.error}); its blobs cannot be listed.`)
    throw error
  }
  const wanted = new Set(cids)
  const sizes = new Map<string, number>()
  if (wanted.size > 0) {
    // Sizes come from the blob references in the account's records; the walk stops once every
    // listed blob is sized.
    const { collections } = await pds.describeRepo(did)
    const allSized = () => [...wanted].every((cid) => sizes.has(cid))
    for (const collection of collections.filter((c) => !BLOB_FREE_COLLECTIONS.has(c))) {
      if (allSized()) break
      await readAllPages(
        'record',
        async (cursor) => {
          const page = await pds.listRecords(did, collection, cursor)
          return { cursor: page.cursor, items: page.records }
        },
        (records) => {
          for (const r of records) collectBlobSizes(r.value, sizes)
          return !allSized()
        },
      )
    }
    // Blobs no record describes (legacy references, unknown lexicons) are sized by the PDS itself.
    const unsized = [...wanted].filter((cid) => !sizes.has(cid))
    const fetched = await mapLimit(unsized, PDS_CONCURRENCY, (cid) => pds.blobSize(did, cid))
    unsized.forEach((cid, i) => {
      if (fetched[i] === null) wanted.delete(cid)
      else sizes.set(cid, fetched[i])
    })
  }
  let usageBytes = 0
  for (const cid of wanted) usageBytes += sizes.get(cid) ?? 0
  return { usageBytes, blobCount: wanted.size }
}

function accountBlobUsage(pds: PdsClient, did: string): Promise<AccountUsage> {
  return cached(`pds:blobs:${pds.baseUrl}:${did}`, TTL.blobs, () => computeAccountBlobUsage(pds, did))
}

// GET /api/pds/blobStorageUsageBytes/{did} - blob storage used by one account
export async function getBlobUsageForDid(did: string, pds: PdsClient = configuredPds()): Promise<BlobUsage> {
  const checked = Did.safeParse(did)
  if (!checked.success) throw new AppError('invalid_input', describeZodError(checked.error, 'did'))
  return { did, ...(await accountBlobUsage(pds, did)), accountCount: 1 }
}

// GET /api/pds/blobStorageUsageBytes - blob storage used by all active accounts
export async function getBlobUsage(pds: PdsClient = configuredPds()): Promise<BlobUsage> {
  return cached(`pds:blobs:${pds.baseUrl}:*`, TTL.blobs, async () => {
    const { repos } = await getRepos(pds)
    // Blobs of inactive accounts cannot be listed over the public sync API.
    const active = repos.filter((r) => r.active)
    const perAccount = await mapLimit(active, 2, (repo) =>
      accountBlobUsage(pds, repo.did).catch((error) => {
        if (error instanceof AppError && error.code === 'not_found') return null
        throw error
      }),
    )
    const counted = perAccount.filter((u) => u !== null)
    return {
      did: null,
      usageBytes: counted.reduce((sum, u) => sum + u.usageBytes, 0),
      blobCount: counted.reduce((sum, u) => sum + u.blobCount, 0),
      accountCount: counted.length,
    }
  })
}

// GET /api/pds/uptimeStats - BetterStack SLA summary of the PDS monitor
export async function getUptimeStats(range: UptimeQuery = {}): Promise<UptimeStats> {
  const { BETTERSTACK_API_URL: apiUrl, BETTERSTACK_API_TOKEN: token, BETTERSTACK_MONITOR_ID: monitorId } = config
  if (!token || !monitorId)
    throw new AppError('not_configured', 'Uptime statistics are not configured on this server: set BETTERSTACK_API_TOKEN and BETTERSTACK_MONITOR_ID.')
  const key = `pds:uptime:${apiUrl}:${monitorId}:${range.startDate ?? ''}:${range.endDate ?? ''}`
  return cached(key, TTL.uptime, () => fetchMonitorSla({ apiUrl, token, monitorId }, range))
}

// GET /api/pds/health - the PDS's own health report and server description
export async function getPdsHealth(pds: PdsClient = configuredPds()): Promise<PdsHealth> {
  const t0 = performance.now()
  const [self, server] = await Promise.all([pds.health(), getServerInfo(pds)])
  return {
    status: self.ok ? 'ok' : 'down',
    version: self.version,
    error: self.error,
    latencyMs: Math.round((performance.now() - t0) * 100) / 100,
    server,
  }
}

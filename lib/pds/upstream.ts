import 'server-only'
import type { z } from 'zod'
import { AppError } from '@/lib/errors'
import { parseUpstreamJson, upstreamFetch, UpstreamMalformed, UpstreamStatus, type UpstreamResponse } from '@/lib/upstream/http'
import {
  BetterStackError,
  BetterStackSla,
  DidDocument,
  XrpcDescribeRepo,
  XrpcDescribeServer,
  XrpcErrorBody,
  XrpcHealth,
  XrpcListBlobs,
  XrpcListRecords,
  XrpcListRepos,
  XrpcResolveHandle,
  type PdsServerInfo,
  type UptimeStats,
} from '@/lib/pds/schemas'

// Adapters for the PDS (XRPC), the PLC directory and BetterStack: call, parse each payload with
// its own schema, reshape into our DTOs. Upstream field names stop here.

const PDS = 'PDS'
const PLC = 'PLC directory'
const BETTERSTACK = 'BetterStack'

/**
 * An XRPC error answer (`{error, message}` with a 4xx status); unhandled, it maps to 502. The client
 * is told the status only; the PDS's error name and message are logged (details.detail).
 */
export class XrpcError extends UpstreamStatus {
  constructor(
    status: number,
    readonly error: string,
    readonly detail: string,
  ) {
    super(PDS, status, `${error}${detail ? `: ${detail}` : ''}`)
  }
}

// Error names the PDS uses for an account it does not host or will not serve.
export const REPO_UNAVAILABLE = new Set(['RepoNotFound', 'RepoDeactivated', 'RepoTakendown', 'RepoSuspended'])

export function xrpcErrorOf(status: number, text: string): XrpcError {
  let body: { error: string; message?: string } | undefined
  try {
    const parsed = XrpcErrorBody.safeParse(JSON.parse(text))
    if (parsed.success) body = parsed.data
  } catch {
    // not JSON: a proxy or a server that is not a PDS
  }
  return new XrpcError(status, body?.error ?? 'Unknown', body?.message ?? text.slice(0, 200))
}

export function reshapeDescribeServer(d: XrpcDescribeServer): PdsServerInfo {
  return {
    did: d.did,
    availableUserDomains: d.availableUserDomains,
    inviteCodeRequired: d.inviteCodeRequired ?? false,
    phoneVerificationRequired: d.phoneVerificationRequired ?? false,
    blobUploadLimit: d.blobUploadLimit ?? null,
    links: { privacyPolicy: d.links?.privacyPolicy ?? null, termsOfService: d.links?.termsOfService ?? null },
    contactEmail: d.contact?.email ?? null,
  }
}

export interface PdsSelfReport {
  ok: boolean
  version: string | null
  error: string | null
}

/** `_health` answers 200 `{version}` when healthy and 503 `{version, error}` when its database is down. */
export function reshapeHealth(status: number, text: string): PdsSelfReport {
  const body = parseUpstreamJson(PDS, text, XrpcHealth)
  return { ok: status === 200, version: body.version ?? null, error: status === 200 ? null : (body.error ?? `HTTP ${status}`) }
}

/** The DID a resolveHandle answer names, or null when the PDS says the handle resolves to nothing. */
export function reshapeResolveHandle(status: number, text: string): string | null {
  if (status === 200) return parseUpstreamJson(PDS, text, XrpcResolveHandle).did
  const error = xrpcErrorOf(status, text)
  // Older PDS versions answer InvalidRequest "Unable to resolve handle"; newer ones HandleNotFound.
  if (status === 400 && (error.error === 'HandleNotFound' || /unable to resolve handle/i.test(error.detail))) return null
  throw error
}

export const reshapeSla = (sla: BetterStackSla): UptimeStats => ({ ...sla.data.attributes })

/** BetterStack's 400 message (`errors` is a string there), or a generic one. */
export function betterStackErrorMessage(text: string): string {
  try {
    const parsed = BetterStackError.safeParse(JSON.parse(text))
    if (parsed.success) return typeof parsed.data.errors === 'string' ? parsed.data.errors : JSON.stringify(parsed.data.errors)
  } catch {
    // fall through
  }
  return 'BetterStack rejected the date range.'
}

export interface PdsClient {
  readonly baseUrl: string
  health(): Promise<PdsSelfReport>
  describeServer(): Promise<PdsServerInfo>
  listRepos(cursor?: string): Promise<z.output<typeof XrpcListRepos>>
  listRecords(did: string, collection: string, cursor?: string): Promise<z.output<typeof XrpcListRecords>>
  listBlobs(did: string, cursor?: string): Promise<z.output<typeof XrpcListBlobs>>
  describeRepo(did: string): Promise<z.output<typeof XrpcDescribeRepo>>
  /** Size from getBlob's Content-Length; null when the PDS no longer serves the blob. */
  blobSize(did: string, cid: string): Promise<number | null>
  resolveHandle(handle: string): Promise<string | null>
}

const ERROR_STATUSES = [400, 401, 403, 404]

export function createPdsClient(baseUrl: string): PdsClient {
  const base = baseUrl.replace(/\/+$/, '')
  const url = (nsid: string, params: Record<string, string | undefined> = {}) => {
    const u = new URL(`${base}/xrpc/${nsid}`)
    for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v)
    return u.toString()
  }
  const call = (nsid: string, params?: Record<string, string | undefined>, method = 'GET') =>
    upstreamFetch(PDS, url(nsid, params), { method, headers: { accept: 'application/json' }, acceptStatus: ERROR_STATUSES })
  const query = async <S extends z.ZodType>(nsid: string, params: Record<string, string | undefined>, schema: S): Promise<z.output<S>> => {
    const res = await call(nsid, params)
    if (res.status !== 200) throw xrpcErrorOf(res.status, res.text())
    return parseUpstreamJson(PDS, res.text(), schema)
  }
  return {
    baseUrl: base,
    async health() {
      const res = await upstreamFetch(PDS, url('_health'), { acceptStatus: [503] })
      return reshapeHealth(res.status, res.text())
    },
    describeServer: async () => reshapeDescribeServer(await query('com.atproto.server.describeServer', {}, XrpcDescribeServer)),
    listRepos: (cursor) => query('com.atproto.sync.listRepos', { limit: '1000', cursor }, XrpcListRepos),
    listRecords: (did, collection, cursor) => query('com.atproto.repo.listRecords', { repo: did, collection, limit: '100', cursor }, XrpcListRecords),
    listBlobs: (did, cursor) => query('com.atproto.sync.listBlobs', { did, limit: '1000', cursor }, XrpcListBlobs),
    describeRepo: (did) => query('com.atproto.repo.describeRepo', { repo: did }, XrpcDescribeRepo),
    async blobSize(did, cid) {
      const res: UpstreamResponse = await call('com.atproto.sync.getBlob', { did, cid }, 'HEAD')
      if (res.status === 404 || res.status === 400) return null
      if (res.status !== 200) throw new XrpcError(res.status, 'Unknown', '')
      const length = Number(res.headers.get('content-length'))
      if (!Number.isSafeInteger(length) || length < 0) throw new UpstreamMalformed(PDS, 'getBlob answered without a Content-Length')
      return length
    },
    async resolveHandle(handle) {
      const res = await call('com.atproto.identity.resolveHandle', { handle })
      return reshapeResolveHandle(res.status, res.text())
    },
  }
}

/** The handles a DID document claims (`alsoKnownAs` `at://` entries), or null when the DID is unknown. */
export async function fetchPlcHandles(plcUrl: string, did: string): Promise<string[] | null> {
  const res = await upstreamFetch(PLC, `${plcUrl.replace(/\/+$/, '')}/${encodeURIComponent(did)}`, {
    headers: { accept: 'application/did+ld+json, application/json' },
    acceptStatus: [404, 410],
  })
  if (res.status !== 200) return null
  const doc = parseUpstreamJson(PLC, res.text(), DidDocument)
  return (doc.alsoKnownAs ?? []).filter((aka) => aka.startsWith('at://')).map((aka) => aka.slice(5).toLowerCase())
}

export interface BetterStackTarget {
  apiUrl: string
  token: string
  monitorId: string
}

export async function fetchMonitorSla(target: BetterStackTarget, range: { startDate?: string; endDate?: string }): Promise<UptimeStats> {
  const u = new URL(`${target.apiUrl.replace(/\/+$/, '')}/monitors/${encodeURIComponent(target.monitorId)}/sla`)
  if (range.startDate) u.searchParams.set('from', range.startDate)
  if (range.endDate) u.searchParams.set('to', range.endDate)
  const res = await upstreamFetch(BETTERSTACK, u.toString(), {
    headers: { accept: 'application/json', authorization: `Bearer ${target.token}` },
    acceptStatus: [400, 401, 403, 404],
  })
  if (res.status === 400) throw new AppError('invalid_input', `startDate/endDate: ${betterStackErrorMessage(res.text())}`)
  if (res.status === 401 || res.status === 403)
    throw new AppError('upstream_failed', `BetterStack rejected the API token (HTTP ${res.status}); check BETTERSTACK_API_TOKEN.`)
  if (res.status === 404) throw new AppError('upstream_failed', 'BetterStack does not know the monitor; check BETTERSTACK_MONITOR_ID.')
  return reshapeSla(parseUpstreamJson(BETTERSTACK, res.text(), BetterStackSla))
}

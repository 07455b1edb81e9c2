import { setTimeout as sleep } from 'node:timers/promises'
import type { ServerResponse } from 'node:http'
import { sendJson, type FakeHandler, type ReceivedRequest } from './fake-upstream'
import { tidFromTimeMs } from '../lib/pds/tid'

// A fake Bluesky PDS on loopback. No public recording of listRepos, listRecords, listBlobs,
// describeRepo, getBlob or XRPC errors exists (tests/fixtures/atproto/SOURCES.md), so those answers
// are built here to the lexicon shapes and paged as the reference PDS pages: a cursor on every
// non-empty page, an empty page at the end. Recorded payloads (describeServer, _health,
// resolveHandle) are passed in by the caller.

export interface FakeRecord {
  rkey: string
  value: unknown
}

export interface FakeAccount {
  did: string
  handle?: string
  active?: boolean
  status?: string
  /** collection → records */
  records?: Record<string, FakeRecord[]>
  /** cid → size in bytes (served by listBlobs and getBlob) */
  blobs?: Record<string, number>
}

export type Fault = 'status500' | 'timeout' | 'malformed'

export interface FakePdsOptions {
  accounts: FakeAccount[]
  describeServer: string
  health: string
  /** handle → resolveHandle body (text); other handles get the "Unable to resolve handle" error */
  resolve?: Record<string, string>
  /** Largest page the server serves, whatever limit is asked (a server may cap below the lexicon max). */
  pageCap?: number
  /** How long a `timeout` fault holds the response. */
  hangMs?: number
}

export function postRecord(createdAt: string, writtenMs = Date.parse(createdAt), clockId = 0): FakeRecord {
  return { rkey: tidFromTimeMs(writtenMs, clockId), value: { $type: 'app.bsky.feed.post', text: 'post', langs: ['en'], createdAt } }
}

export const blobRef = (cid: string, size: number, mimeType = 'image/jpeg') => ({ $type: 'blob', ref: { $link: cid }, mimeType, size })

const xrpcError = (res: ServerResponse, status: number, error: string, message: string) => sendJson(res, status, { error, message })

export function createFakePds(options: FakePdsOptions) {
  const byDid = new Map(options.accounts.map((a) => [a.did, a]))
  const cap = options.pageCap ?? Number.POSITIVE_INFINITY
  /** nsid (or `plc`) → fault injected on every matching request */
  const faults = new Map<string, Fault>()
  const limitOf = (req: ReceivedRequest, max: number, fallback: number) => Math.min(Number(req.query.get('limit') ?? fallback), max, cap)

  function repoGate(res: ServerResponse, did: string | null): FakeAccount | null {
    const account = did ? byDid.get(did) : undefined
    if (!account) {
      xrpcError(res, 400, 'RepoNotFound', `Could not find repo for DID: ${did}`)
      return null
    }
    if (account.active === false) {
      xrpcError(res, 400, 'RepoDeactivated', `Repo has been deactivated: ${did}`)
      return null
    }
    return account
  }

  const handler: FakeHandler = async (req, res) => {
    const nsid = req.path.replace(/^\/xrpc\//, '')
    const fault = faults.get(nsid)
    if (fault === 'status500') return xrpcError(res, 500, 'InternalServerError', 'Internal Server Error')
    if (fault === 'malformed') return sendJson(res, 200, '{"version": "0.4.0", trunc')
    if (fault === 'timeout') {
      await sleep(options.hangMs ?? 5000)
      if (!res.destroyed) sendJson(res, 200, '{}')
      return
    }
    switch (nsid) {
      case '_health':
        return sendJson(res, 200, options.health)
      case 'com.atproto.server.describeServer':
        return sendJson(res, 200, options.describeServer)
      case 'com.atproto.sync.listRepos': {
        const limit = limitOf(req, 1000, 500)
        const cursor = req.query.get('cursor')
        const start = cursor ? options.accounts.findIndex((a) => a.did === cursor) + 1 : 0
        const page = options.accounts.slice(start, start + limit).map((a) => ({
          did: a.did,
          head: 'bafyreib2rxk3rh6kzwq',
          rev: '3l3qo2vuowo2b',
          active: a.active ?? true,
          ...(a.active === false ? { status: a.status ?? 'deactivated' } : {}),
        }))
        return sendJson(res, 200, page.length ? { cursor: page.at(-1)!.did, repos: page } : { repos: [] })
      }
      case 'com.atproto.repo.listRecords': {
        const account = repoGate(res, req.query.get('repo'))
        if (!account) return
        const limit = limitOf(req, 100, 50)
        const cursor = req.query.get('cursor')
        // Newest record key first, as the reference PDS lists by default.
        const all = [...(account.records?.[req.query.get('collection') ?? ''] ?? [])].sort((a, b) => (a.rkey < b.rkey ? 1 : -1))
        const page = all.filter((r) => !cursor || r.rkey < cursor).slice(0, limit)
        const collection = req.query.get('collection')
        const records = page.map((r) => ({ uri: `at://${account.did}/${collection}/${r.rkey}`, cid: 'bafyreicid', value: r.value }))
        return sendJson(res, 200, records.length ? { cursor: page.at(-1)!.rkey, records } : { records })
      }
      case 'com.atproto.sync.listBlobs': {
        const account = repoGate(res, req.query.get('did'))
        if (!account) return
        const limit = limitOf(req, 1000, 500)
        const cids = Object.keys(account.blobs ?? {}).sort()
        const cursor = req.query.get('cursor')
        const page = cids.filter((c) => !cursor || c > cursor).slice(0, limit)
        return sendJson(res, 200, page.length ? { cursor: page.at(-1), cids: page } : { cids: [] })
      }
      case 'com.atproto.repo.describeRepo': {
        const account = repoGate(res, req.query.get('repo'))
        if (!account) return
        return sendJson(res, 200, {
          handle: account.handle ?? 'handle.invalid',
          did: account.did,
          didDoc: {},
          collections: Object.keys(account.records ?? {}),
          handleIsCorrect: true,
        })
      }
      case 'com.atproto.sync.getBlob': {
        const account = repoGate(res, req.query.get('did'))
        if (!account) return
        const size = account.blobs?.[req.query.get('cid') ?? '']
        if (size === undefined) return xrpcError(res, 400, 'BlobNotFound', 'Blob not found')
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(size) })
        res.end(req.method === 'HEAD' ? undefined : Buffer.alloc(size))
        return
      }
      case 'com.atproto.identity.resolveHandle': {
        const body = options.resolve?.[req.query.get('handle') ?? '']
        return body ? sendJson(res, 200, body) : xrpcError(res, 400, 'InvalidRequest', 'Unable to resolve handle')
      }
      default:
        return xrpcError(res, 404, 'MethodNotImplemented', 'Method Not Implemented')
    }
  }

  /** Requests the fake received for one XRPC method. */
  const callsTo = (requests: ReceivedRequest[], nsid: string) => requests.filter((r) => r.path === `/xrpc/${nsid}`)

  return { handler, faults, callsTo }
}

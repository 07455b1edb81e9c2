import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { AppError } from '@/lib/errors'
import { getBlobUsage, getBlobUsageForDid, getPostingHeatmap, getRepos, verifyHandle } from '@/lib/pds/service'
import { tidFromTimeMs } from '@/lib/pds/tid'
import { xrpcErrorOf, type PdsClient } from '@/lib/pds/upstream'

// The service against an in-process PDS adapter (the HTTP side is covered by the integration test).

const B32 = 'abcdefghijklmnopqrstuvwxyz234567'
const did = (n: number) =>
  `did:plc:${[...n.toString(32)]
    .map((c) => B32[parseInt(c, 32)])
    .join('')
    .padStart(24, 'a')}`
const year = new Date().getUTCFullYear()

function fakePds(overrides: Partial<PdsClient> = {}): PdsClient & { calls: string[] } {
  const calls: string[] = []
  const log = (name: string) => calls.push(name)
  const notImplemented = (name: string) => async () => {
    log(name)
    throw new Error(`${name} not expected`)
  }
  return {
    baseUrl: `http://pds-${randomUUID()}.test`,
    calls,
    health: notImplemented('health'),
    describeServer: async () => {
      log('describeServer')
      return {
        did: 'did:web:pds.test',
        availableUserDomains: ['.pds.test'],
        inviteCodeRequired: false,
        phoneVerificationRequired: false,
        blobUploadLimit: null,
        links: { privacyPolicy: null, termsOfService: null },
        contactEmail: null,
      }
    },
    listRepos: notImplemented('listRepos'),
    listRecords: notImplemented('listRecords'),
    listBlobs: notImplemented('listBlobs'),
    describeRepo: notImplemented('describeRepo'),
    blobSize: notImplemented('blobSize'),
    resolveHandle: notImplemented('resolveHandle'),
    ...overrides,
  } as PdsClient & { calls: string[] }
}

/** listRepos over `n` accounts with a server-side page cap, as the reference PDS pages: a cursor on every non-empty page. */
function pagedRepos(n: number, cap: number, inactive = new Set<number>()) {
  let calls = 0
  const listRepos = async (cursor?: string) => {
    calls++
    const start = cursor ? Number(cursor) : 0
    const repos = Array.from({ length: Math.max(0, Math.min(cap, n - start)) }, (_, i) => {
      const k = start + i
      return inactive.has(k)
        ? { did: did(k), head: 'bafyhead', rev: '3l', active: false, status: 'deactivated' }
        : { did: did(k), head: 'bafyhead', rev: '3l', active: true }
    })
    return repos.length ? { cursor: String(start + repos.length), repos } : { repos }
  }
  return { listRepos, calls: () => calls }
}

describe('getRepos', () => {
  it('reads every page even when the server caps pages below the requested limit', async () => {
    const paged = pagedRepos(1203, 500, new Set([3, 700]))
    const result = await getRepos(fakePds({ listRepos: paged.listRepos }))
    expect(paged.calls()).toBe(4) // 500 + 500 + 203 + the empty page that ends the listing
    expect([result.total, result.active, result.inactive]).toEqual([1203, 1201, 2])
    expect(result.repos.find((r) => r.did === did(700))).toEqual({ did: did(700), head: 'bafyhead', rev: '3l', active: false, status: 'deactivated' })
    expect(result.repos[0].status).toBeNull()
  })

  it('stops on a repeated cursor instead of looping', async () => {
    const pds = fakePds({ listRepos: async () => ({ cursor: 'same', repos: [{ did: did(1), head: 'h', rev: 'r' }] }) })
    await expect(getRepos(pds)).rejects.toThrow(/repeated the same repository cursor/)
  })
})

describe('verifyHandle', () => {
  it('answers rule breaks with 400 before asking for resolution', async () => {
    const pds = fakePds()
    for (const [handle, rule] of [
      ['al..pds.test', 'empty label'],
      ['al.pds.test', 'at least 3 characters'],
    ]) {
      const error = await verifyHandle(handle, pds).catch((e) => e)
      expect(error).toBeInstanceOf(AppError)
      expect([error.status, error.message]).toEqual([400, expect.stringContaining(rule)])
    }
    expect(pds.calls).not.toContain('resolveHandle')
  })

  it('reports reserved names without resolving, and resolves the rest', async () => {
    const resolved: string[] = []
    const pds = fakePds({
      resolveHandle: async (h) => {
        resolved.push(h)
        return h === 'taken.pds.test' || h === 'stale.pds.test' ? did(9) : null
      },
    })
    const plc = async (d: string) => (d === did(9) ? ['taken.pds.test'] : null)
    const check = (handle: string) => verifyHandle(handle, pds, plc)
    expect(await check('Admin.PDS.test')).toMatchObject({ handle: 'admin.pds.test', available: false, reason: expect.stringContaining('reserved') })
    expect(await check('Free-Name.pds.test')).toEqual({ handle: 'free-name.pds.test', available: true, reason: null, did: null, verified: null })
    expect(await check('taken.pds.test')).toMatchObject({
      available: false,
      did: did(9),
      verified: true,
      reason: expect.stringContaining('already registered'),
    })
    // the PDS still maps the handle, but the DID document no longer claims it
    expect(await check('stale.pds.test')).toMatchObject({ available: false, did: did(9), verified: false })
    expect(resolved).toEqual(['free-name.pds.test', 'taken.pds.test', 'stale.pds.test'])
  })
})

describe('getPostingHeatmap', () => {
  it('counts the active accounts only, skips vanished ones and stops paging before the year', async () => {
    const paged = pagedRepos(3, 1000, new Set([2]))
    const listed: string[] = []
    const pageOf = (times: number[]) =>
      times.map((t) => ({ uri: `at://x/app.bsky.feed.post/${tidFromTimeMs(t)}`, value: { createdAt: new Date(t).toISOString() } }))
    const jan2 = Date.UTC(year, 0, 2, 10)
    const pds = fakePds({
      listRepos: paged.listRepos,
      listRecords: async (repo, collection, cursor) => {
        listed.push(`${repo}:${cursor ?? ''}`)
        expect(collection).toBe('app.bsky.feed.post')
        if (repo === did(1)) throw xrpcErrorOf(400, '{"error":"RepoDeactivated","message":"Repo has been deactivated"}')
        if (!cursor) return { cursor: 'p2', records: pageOf([jan2, jan2 - 3_600_000]) }
        if (cursor === 'p2') return { cursor: 'p3', records: pageOf([Date.UTC(year - 1, 5, 1)]) }
        throw new Error('paged past the year')
      },
    })
    expect(await getPostingHeatmap(year, pds)).toEqual({ [`${year}-01-02`]: 2 })
    expect(listed.filter((l) => l.startsWith(did(0)))).toEqual([`${did(0)}:`, `${did(0)}:p2`])
    expect(listed.some((l) => l.startsWith(did(2)))).toBe(false)
  })

  it.each([2019, year + 1])('rejects %i with 400', async (y) => {
    await expect(getPostingHeatmap(y, fakePds())).rejects.toMatchObject({ status: 400, message: expect.stringContaining('forYear') })
  })
})

describe('blob usage', () => {
  it('sizes blobs from records first and from getBlob for the rest, skipping gone blobs', async () => {
    const sized: string[] = []
    const pds = fakePds({
      listRepos: pagedRepos(2, 1000).listRepos,
      listBlobs: async (d, cursor) => (cursor ? { cids: [] } : { cursor: 'c', cids: d === did(0) ? ['bafa', 'bafb', 'bafc', 'bafgone'] : ['bafz'] }),
      describeRepo: async () => ({ collections: ['app.bsky.feed.like', 'app.bsky.feed.post'] }),
      listRecords: async (d, collection, cursor) => {
        expect(collection).toBe('app.bsky.feed.post')
        if (cursor) return { records: [] }
        const image = (cid: string, size: number) => ({ $type: 'blob', ref: { $link: cid }, mimeType: 'image/jpeg', size })
        return {
          cursor: 'r',
          records: [{ uri: 'at://x/app.bsky.feed.post/1', value: { embed: { images: [{ image: image('bafa', 100) }, { image: image('bafb', 50) }] } } }],
        }
      },
      blobSize: async (d, cid) => {
        sized.push(cid)
        return cid === 'bafgone' ? null : cid === 'bafc' ? 7 : 1000
      },
    })
    expect(await getBlobUsageForDid(did(0), pds)).toEqual({ did: did(0), usageBytes: 157, blobCount: 3, accountCount: 1 })
    expect(await getBlobUsage(pds)).toEqual({ did: null, usageBytes: 1157, blobCount: 4, accountCount: 2 })
    expect(sized.sort()).toEqual(['bafc', 'bafgone', 'bafz'])
  })

  it('maps a DID the PDS does not host to 404 and a malformed DID to 400', async () => {
    const pds = fakePds({ listBlobs: async () => Promise.reject(xrpcErrorOf(400, '{"error":"RepoNotFound","message":"Could not find repo"}')) })
    await expect(getBlobUsageForDid(did(5), pds)).rejects.toMatchObject({ status: 404, message: `No account ${did(5)} on this PDS.` })
    await expect(getBlobUsageForDid('did:example:123', pds)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('did:') })
  })
})

import { describe, expect, it, vi } from 'vitest'
import examples from '@/lib/openapi/examples.json'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ReposResult } from '@/lib/pds/schemas'

// The one path every tool result takes (callTool, lib/mcp/tool.ts): upstream text stripped of
// invisible and bidi control characters, and the result kept within RESULT_MAX_CHARS with a text
// block at most 1.1 times the structured content. Each tool runs on a fixture: the recorded answer
// of its REST operation (lib/openapi/examples.json) in the tool's shape, poisoned or inflated.

// get_pds_repos reads the whole list from the PDS service; here the list is the worst case.
const REPOS = 10_000
const B32 = 'abcdefghijklmnopqrstuvwxyz234567'
const b32 = (i: number, width: number) => [...i.toString(32).padStart(width, '0')].map((c) => B32[parseInt(c, 32)]).join('')
// listRepos entries as the lexicon shapes them: a did:plc, a CIDv1 (dag-cbor, sha-256: 59 characters), a TID rev.
const reposList: ReposResult = {
  total: REPOS,
  active: 0,
  inactive: REPOS,
  repos: Array.from({ length: REPOS }, (_, i) => ({
    did: `did:plc:${b32(i, 24)}`,
    head: `bafyrei${b32(i, 52)}`,
    rev: `3l${b32(i, 11)}`,
    active: false,
    status: 'deactivated',
  })),
}
vi.mock('@/lib/pds/service', async (original) => ({ ...(await original<object>()), getRepos: async () => reposList }))

const { AppError } = await import('@/lib/errors')
const { callTool, RESULT_MAX_CHARS, resultChars } = await import('@/lib/mcp/tool')
const { tools } = await import('@/lib/mcp/tools')
const { stripInvisible } = await import('@/lib/mcp/hygiene')

const ctx = { requestId: 'test-request' }
const tool = (name: string) => tools.find((t) => t.name === name)!
const ops = examples.operations as unknown as Record<string, Record<string, { body: unknown }>>
const recorded = (op: string, example: string) => structuredClone(ops[op][example].body) as Record<string, unknown>

/** Each tool's output built from its REST operation's recorded answer. */
const FIXTURES: Record<string, () => Record<string, unknown>> = {
  check_api_health: () => recorded('getHealth', 'up'),
  check_domain_health: () => recorded('checkDomainHealth', 'wellConfigured'),
  get_pds_blob_storage_usage: () => recorded('getPdsBlobUsage', 'all'),
  get_pds_blob_storage_usage_for_did: () => recorded('getPdsAccountBlobUsage', 'account'),
  get_pds_bsky_heatmap: () => {
    const days = recorded('getPdsPostingHeatmap', 'year') as Record<string, number>
    return { year: 2025, totalPosts: Object.values(days).reduce((a, b) => a + b, 0), activeDays: Object.keys(days).length, days }
  },
  get_pds_repos: () => ({ ...recorded('listPdsRepos', 'all'), truncated: false, nextCursor: null }),
  list_domains: () => recorded('listPlatformDomains', 'all'),
  list_policies: () => recorded('listPolicies', 'all'),
  verify_pds_handle_availability: () => recorded('verifyPdsHandle', 'taken'),
}

const run = (name: string, output: Record<string, unknown>, args: Record<string, unknown> = {}) =>
  callTool({ ...tool(name), run: async () => output }, args, ctx) as Promise<CallToolResult & { structuredContent: Record<string, unknown> }>

const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text
const bytes = (s: string) => Buffer.byteLength(s)
const HIDDEN = /\p{Cf}/u

// Trojan Source's bidi override and isolate, zero-width characters, a byte-order mark and a Unicode tag character.
const poison = (s: string) => `\u202E${s.slice(0, 1)}\u200B\u2066${s.slice(1)}\u2069\u200D\uFEFF\u{E0041}\u202C`
const poisonAll = <T>(value: T): T => {
  if (typeof value === 'string') return poison(value) as T
  if (Array.isArray(value)) return value.map(poisonAll) as T
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poisonAll(v)])) as T
  return value
}

it('has a fixture for every tool', () => {
  expect(Object.keys(FIXTURES).sort()).toEqual(tools.map((t) => t.name))
})

describe('text hygiene', () => {
  it('strips Cf characters (bidi controls, isolates, zero-width, tags) and keeps everything else', () => {
    expect(stripInvisible({ 'k\u200Bey': ['a\u202Eb\u2066c\u2069', 1, null, 'e\u0301 ✓ 中文\n'] })).toEqual({ key: ['abc', 1, null, 'e\u0301 ✓ 中文\n'] })
  })

  it.each(Object.keys(FIXTURES))('%s: upstream strings reach neither the text nor the structured content with invisible characters', async (name) => {
    const clean = FIXTURES[name]()
    const result = await run(name, poisonAll(clean))
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(JSON.stringify(result)).not.toMatch(HIDDEN)
    expect(result.structuredContent).toEqual(clean)
    expect(tool(name).output.safeParse(result.structuredContent).success).toBe(true)
  })

  it('an error message quoting upstream text is stripped too', async () => {
    const failing = { ...tool('verify_pds_handle_availability'), run: async () => Promise.reject(new AppError('not_found', "No handle 'a\u202Egnp.exe'.")) }
    const result = await callTool(failing, {}, ctx)
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result)).not.toMatch(HIDDEN)
  })
})

describe('result budget', () => {
  const withinBudget = (result: CallToolResult & { structuredContent?: Record<string, unknown> }) => {
    expect(result.isError, textOf(result)).toBeFalsy()
    expect(resultChars(result)).toBeLessThanOrEqual(RESULT_MAX_CHARS)
    expect(bytes(textOf(result))).toBeLessThanOrEqual(1.1 * bytes(JSON.stringify(result.structuredContent)))
  }

  it.each(Object.keys(FIXTURES))('%s: the recorded answer fits, with a text block at most 1.1 times the structured content', async (name) => {
    withinBudget(await run(name, FIXTURES[name]()))
  })

  it('the text is the JSON after its summary when the summary adds at most a tenth; a small answer is its own summary', async () => {
    const report = await run('check_domain_health', FIXTURES.check_domain_health())
    expect(textOf(report)).toMatch(/^febit\.eu: grade A .*\n\n\{/)
    const blobs = await run('get_pds_blob_storage_usage', FIXTURES.get_pds_blob_storage_usage())
    expect(JSON.parse(textOf(blobs))).toEqual(blobs.structuredContent)
  })

  it('get_pds_repos on a PDS of 10,000 repositories, limit 200: a shorter page within budget, whose cursors walk every repository once', async () => {
    const seen: string[] = []
    let cursor: string | undefined
    let pages = 0
    for (; pages < 500; pages++) {
      const result = (await callTool(tool('get_pds_repos'), { limit: 200, ...(cursor ? { cursor } : {}) }, ctx)) as CallToolResult & {
        structuredContent: { repos: { did: string }[]; truncated: boolean; nextCursor: string | null }
      }
      withinBudget(result)
      const page = result.structuredContent
      if (pages === 0) {
        expect(page.repos.length).toBeGreaterThan(50)
        expect(page.repos.length).toBeLessThan(200)
        expect(textOf(result)).toContain(`It holds ${page.repos.length} of the 200 asked for, to stay within ${RESULT_MAX_CHARS} characters.`)
        expect(textOf(result)).toContain('pass nextCursor as cursor')
      }
      seen.push(...page.repos.map((r) => r.did))
      cursor = page.nextCursor ?? undefined
      if (!page.truncated) break
    }
    expect(cursor).toBeUndefined()
    expect(seen).toHaveLength(REPOS)
    expect(new Set(seen).size).toBe(REPOS)
  })

  // A domain with every record type at its maximum: the longest TXT records (SPF and DMARC near
  // 512 characters, 4096-bit DKIM keys under all 26 selectors), 10 SPF includes, 10 MX hosts with
  // their addresses and DANE records, 20 CAA issuers, and a warning on every check.
  function worstDomain() {
    const report = FIXTURES.check_domain_health() as any
    const long = (seed: string, n: number) => `${seed}${'x'.repeat(n)}`.slice(0, n)
    const checks = report.checks
    for (const check of Object.values(checks) as any[]) {
      check.records = Array.from({ length: 4 }, (_, i) => long(`v=record${i}; `, 500))
      check.warnings = Array.from({ length: 5 }, (_, i) => long(`Warning ${i}: `, 200))
    }
    checks.mx.hosts = Array.from({ length: 10 }, (_, i) => ({ priority: i, exchange: `mx${i}.mail.example.com`, addresses: ['192.0.2.1', '2001:db8::1'] }))
    checks.spf.record = long('v=spf1 ', 500)
    checks.spf.tree = Array.from({ length: 11 }, (_, i) => ({
      domain: `spf${i}.example.com`,
      depth: i ? 1 : 0,
      via: i ? 'include' : 'root',
      record: long('v=spf1 ip4:', 500),
      lookups: 1,
      error: null,
    }))
    checks.dkim.selectorsProbed = Array.from({ length: 26 }, (_, i) => `selector${i}`)
    checks.dkim.keys = checks.dkim.selectorsProbed.map((selector: string) => ({
      selector,
      name: `${selector}._domainkey.example.com`,
      cname: null,
      keyType: 'rsa',
      keyBits: 4096,
      testing: false,
      revoked: false,
      record: long('v=DKIM1; k=rsa; p=', 750),
    }))
    checks.caa.issuers = Array.from({ length: 20 }, (_, i) => `ca${i}.example`)
    checks.dane.hosts = checks.mx.hosts.map((h: { exchange: string }) => ({
      host: h.exchange,
      tlsa: Array.from({ length: 4 }, () => long('3 1 1 ', 70)),
      authenticated: true,
    }))
    report.mxRecords = checks.mx.hosts.map((h: { priority: number; exchange: string }) => `${h.priority} ${h.exchange}`)
    report.spfRecord = checks.spf.record
    return report
  }

  it('check_domain_health on a domain with every record type at its maximum: the longest strings shortened, with where to read them whole', async () => {
    const report = worstDomain()
    expect(JSON.stringify(report).length).toBeGreaterThan(2 * RESULT_MAX_CHARS)
    const result = await run('check_domain_health', report, { domain: 'example.com' })
    withinBudget(result)
    expect(tool('check_domain_health').output.safeParse(result.structuredContent).success).toBe(true)
    expect(textOf(result)).toMatch(
      /Strings longer than 64 characters are shortened \(ending in …\) and lists cut to their first \d+ entries to keep this result within 24000 characters; GET \/api\/domains\/example\.com answers the raw records whole\./,
    )
  })

  it('list_domains with 50 domains of long records: the first domains that fit, and where to read the rest', async () => {
    const list = FIXTURES.list_domains() as any
    const one = list.domains[0]
    list.domains = Array.from({ length: 50 }, (_, i) => ({
      ...one,
      domain: `d${i}.example`,
      spfRecord: `v=spf1 ${'ip4:192.0.2.1 '.repeat(35)}-all`,
      dmarcRecord: `v=DMARC1; p=reject; rua=${'mailto:a@example.com,'.repeat(10)}`,
    }))
    list.count = 50
    const result = await run('list_domains', list)
    withinBudget(result)
    const listed = (result.structuredContent as any).domains.length
    expect(listed).toBeLessThan(50)
    expect(textOf(result)).toContain(`The records of the first ${listed} of 50 are listed`)
  })

  it('get_pds_bsky_heatmap over a full leap year fits whole', async () => {
    const days = Object.fromEntries(Array.from({ length: 366 }, (_, i) => [new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10), 99_999]))
    const result = await run('get_pds_bsky_heatmap', { year: 2024, totalPosts: 366 * 99_999, activeDays: 366, days })
    withinBudget(result)
    expect(Object.keys((result.structuredContent as any).days)).toHaveLength(366)
  })
})

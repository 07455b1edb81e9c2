import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configKeys } from '@/lib/config'
import { tools } from '@/lib/mcp/tools'

// A variable the code reads but the docs do not mention is a variable nobody can set.
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
const exists = (file: string) => existsSync(new URL(`../../${file}`, import.meta.url))

describe('configuration documentation', () => {
  it.each(configKeys)('%s is in .env.example and docs/configuration.md', (key) => {
    expect(read('.env.example')).toMatch(new RegExp(`^# ${key}=`, 'm'))
    expect(read('docs/configuration.md')).toContain(`\`${key}\``)
  })

  it('documents no variable the configuration does not read (server.mjs reads PORT, HOST, LOCAL_OPERATOR_KEY)', () => {
    const serverOnly = ['PORT', 'HOST', 'LOCAL_OPERATOR_KEY']
    const documented = [...read('docs/configuration.md').matchAll(/^\| ((?:`[A-Z][A-Z0-9_]*`(?:, )?)+) \|/gm)].flatMap(
      (m) => m[1].match(/[A-Z][A-Z0-9_]*/g) ?? [],
    )
    expect(documented.length).toBeGreaterThan(50)
    expect(documented.filter((name) => !(configKeys as string[]).includes(name))).toEqual([])
    for (const name of serverOnly) expect(read('docs/configuration.md')).toContain(`\`${name}\``)
  })
})

// The README is the front door and points into docs/; a link that leads nowhere is a dead end.
const docFiles = [
  'README.md',
  ...readdirSync(new URL('../../docs/', import.meta.url))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>()
  let fenced = false
  for (const line of read(file).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const m = !fenced && /^#{1,6} (.+)$/.exec(line)
    if (m) anchors.add(slug(m[1]))
  }
  return anchors
}

/** Markdown links `[text](target)` outside code, with their targets resolved against the file. */
function relativeLinks(file: string): Array<{ target: string; path: string; anchor?: string }> {
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : ''
  const text = read(file)
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [pathPart, anchor] = target.split('#')
      const path = pathPart ? new URL(pathPart, `file:///${dir}`).pathname.slice(1) : file
      return { target, path, anchor }
    })
}

describe('documentation links', () => {
  it('has the front door and the reference documents', () => {
    for (const file of ['rest', 'mcp', 'query', 'jobs', 'configuration', 'deployment', 'failure-behaviour', 'testing', 'benchmarks', 'scaling'])
      expect(docFiles).toContain(`docs/${file}.md`)
  })

  it.each(docFiles)('every relative link in %s resolves to an existing file and heading', (file) => {
    const links = relativeLinks(file)
    const broken = links.filter(({ path }) => !exists(path)).map(({ target }) => target)
    expect(broken).toEqual([])
    const badAnchors = links.filter(({ path, anchor }) => anchor && path.endsWith('.md') && !anchorsOf(path).has(anchor)).map(({ target }) => target)
    expect(badAnchors).toEqual([])
  })

  it.each(docFiles)('every repository path %s cites exists', (file) => {
    // Files and folders (`lib/jobs/`, `lib/config.ts`) under the top-level folders, and the root files;
    // placeholders (`lib/<group>/`), method names (`server/discover`) and generated outputs skipped.
    const roots =
      /^(lib|app|components|scripts|tests|bench|drizzle|server|docs|public)\/|^(server\.mjs|proxy\.ts|instrumentation\.ts|vercel\.json|redocly\.yaml|\.env\.example|package\.json)$/
    const generated = new Set(['bench/results/latest.json'])
    const cited = [...read(file).matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1])
      .filter((p) => roots.test(p) && /(\/|\.[a-z]+)$/.test(p) && !/[<>{}*…]/.test(p) && !generated.has(p))
    expect(cited.length).toBeGreaterThan(0)
    expect(cited.filter((p) => !exists(p))).toEqual([])
  })

  it('the README links every document in docs/', () => {
    const linked = new Set(relativeLinks('README.md').map(({ path }) => path))
    expect(docFiles.filter((f) => f !== 'README.md' && !linked.has(f))).toEqual([])
  })
})

// The tool registry is the truth about the MCP tools; prose that counts them or a table that lists
// them is checked against it, so a new tool cannot leave the documents behind.
describe('MCP tools in the documentation', () => {
  const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve']
  const number = (word: string) => (/^\d+$/.test(word) ? Number(word) : NUMBERS.indexOf(word.toLowerCase()))
  /** Every "nine read-only tools", "all 9 tools", "the seven tools that read DNS or the PDS" in a document. */
  const counts = (file: string) =>
    [
      ...read(file).matchAll(new RegExp(`\\b(\\d+|${NUMBERS.join('|')})\\s+(?:read-only\\s+)?tools\\b(\\s+that\\s+read\\s+DNS\\s+or\\s+the\\s+PDS)?`, 'gi')),
    ].map((m) => ({
      phrase: m[0].replace(/\s+/g, ' '),
      count: number(m[1]),
      openWorldOnly: !!m[2],
    }))
  const names = (list: readonly { name: string }[]) => list.map((t) => t.name).sort()

  it.each(['README.md', 'docs/mcp.md'])('every count of tools in %s is the number the registry has', (file) => {
    const wrong = counts(file)
      .filter(({ count, openWorldOnly }) => count !== (openWorldOnly ? tools.filter((t) => t.openWorld).length : tools.length))
      .map(({ phrase }) => phrase)
    expect(wrong).toEqual([])
  })

  it('docs/mcp.md counts the tools (so the check above has something to check)', () => {
    expect(counts('docs/mcp.md').length).toBeGreaterThan(0)
  })

  it("docs/mcp.md's tool table lists exactly the registry's tools", () => {
    const section = read('docs/mcp.md')
      .split(/^## /m)
      .find((s) => s.startsWith('Tools\n'))
    const rows = [...(section ?? '').matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => ({ name: m[1] }))
    expect(names(rows)).toEqual(names(tools))
  })
})

describe('configuration parsing', () => {
  it('runs on defaults with nothing set', async () => {
    const { loadConfig } = await import('@/lib/config')
    const c = loadConfig({})
    expect(c.RATE_LIMIT_MAX).toBe(500)
    expect(c.RATE_LIMIT_WINDOW_S).toBe(30)
    expect(c.INTERNAL_API_KEYS).toEqual([])
  })

  it('names the variable that is wrong', async () => {
    const { loadConfig } = await import('@/lib/config')
    expect(() => loadConfig({ RATE_LIMIT_MAX: 'lots' })).toThrow(/RATE_LIMIT_MAX/)
    expect(() => loadConfig({ TRUSTED_IP_HEADER: 'x-client-ip' })).toThrow(/TRUSTED_IP_HEADER/)
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'not a url' })).toThrow(/PUBLIC_BASE_URL/)
  })

  it('splits key lists so a key can be rotated', async () => {
    const { loadConfig } = await import('@/lib/config')
    const [fresh, old] = ['new-internal-key-0123456789abcdefghij', 'old-internal-key-0123456789abcdefghij']
    expect(loadConfig({ INTERNAL_API_KEYS: ` ${fresh} , ${old} ,` }).INTERNAL_API_KEYS).toEqual([fresh, old])
  })

  describe('secrets', () => {
    const long = (role: string) => `${role}-0123456789abcdef0123456789abcdef`
    const ok = { INTERNAL_API_KEYS: `${long('key-a')},${long('key-b')}`, CRON_SECRET: long('cron'), LOGPUSH_SECRET: long('logpush') }

    it('accepts long, distinct secrets for every role', async () => {
      const { loadConfig } = await import('@/lib/config')
      expect(loadConfig(ok)).toMatchObject({ CRON_SECRET: ok.CRON_SECRET, LOGPUSH_SECRET: ok.LOGPUSH_SECRET })
      expect(loadConfig({ CRON_SECRET: 'x'.repeat(32) }).CRON_SECRET).toHaveLength(32)
    })

    it.each([
      [{ CRON_SECRET: 'x'.repeat(31) }, /CRON_SECRET is 31 characters long; a secret needs at least 32/],
      [{ LOGPUSH_SECRET: 'short' }, /LOGPUSH_SECRET is 5 characters long/],
      [{ INTERNAL_API_KEYS: `${long('a')},tiny` }, /INTERNAL_API_KEYS \(entry 2\) is 4 characters long/],
    ])('refuses a secret under 32 characters, naming it: %o', async (env, message) => {
      const { loadConfig } = await import('@/lib/config')
      expect(() => loadConfig(env)).toThrow(message)
    })

    it.each([
      [{ ...ok, LOGPUSH_SECRET: ok.CRON_SECRET }, /CRON_SECRET and LOGPUSH_SECRET are the same secret/],
      [{ ...ok, CRON_SECRET: long('key-b') }, /INTERNAL_API_KEYS \(entry 2\) and CRON_SECRET are the same secret/],
      [{ ...ok, INTERNAL_API_KEYS: `${long('k')},${long('k')}` }, /INTERNAL_API_KEYS \(entry 1\) and INTERNAL_API_KEYS \(entry 2\) are the same secret/],
      [{ INTERNAL_API_KEYS: long('same'), LOGPUSH_SECRET: long('same') }, /INTERNAL_API_KEYS and LOGPUSH_SECRET are the same secret/],
    ])('refuses one secret in two roles, naming both variables: %o', async (env, message) => {
      const { loadConfig } = await import('@/lib/config')
      expect(() => loadConfig(env)).toThrow(message)
    })
  })

  it('takes addresses and CIDRs as trusted proxies, and needs the header they set', async () => {
    const { loadConfig } = await import('@/lib/config')
    expect(loadConfig({ TRUSTED_IP_HEADER: 'forwarded', TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,2001:db8::/32' }).TRUSTED_PROXIES).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '2001:db8::/32',
    ])
    expect(() => loadConfig({ TRUSTED_IP_HEADER: 'x-forwarded-for', TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES/)
    expect(() => loadConfig({ TRUSTED_IP_HEADER: 'x-forwarded-for', TRUSTED_PROXIES: 'proxy.internal' })).toThrow(/TRUSTED_PROXIES/)
    expect(() => loadConfig({ TRUSTED_IP_HEADER: 'x-forwarded-for', TRUSTED_PROXIES: '10' })).toThrow(/TRUSTED_PROXIES/)
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.1' })).toThrow(/TRUSTED_PROXIES is set but TRUSTED_IP_HEADER is not/)
  })
})

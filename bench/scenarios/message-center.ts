import { randomBytes } from 'node:crypto'
import { startApp } from '../../test-support/app'
import { startFakeGhost } from '../../test-support/fake-ghost'
import { startFakeMicrosoft } from '../../test-support/fake-microsoft'
import { load, type BenchRow, type Scenario } from '../lib'

// The Message Center jobs at a realistic size: 600 Graph messages over 6 pages against a blog of
// 2,000 posts (500 of the messages already published, 100 duplicates), on loopback fakes. Reports
// wall time and upstream calls per run; then the cost of a cached blog read against a read that
// never leaves the process (the policies list).

const MESSAGES = 600
const ALREADY_PUBLISHED = 500
const DUPLICATES = 100
const OTHER_POSTS = 2000 - ALREADY_PUBLISHED - DUPLICATES
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5)

function message(n: number) {
  return {
    id: `MC${700000 + n}`,
    title: `Message ${n}`,
    category: 'planForChange',
    severity: 'normal',
    tags: ['Admin impact'],
    services: ['Exchange Online'],
    isMajorChange: false,
    startDateTime: new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString(),
    actionRequiredByDateTime: null,
    details: [{ name: 'ExternalLink', value: 'https://learn.microsoft.com/' }],
    body: { contentType: 'html', content: `<p>Body of message ${n} with <a href="https://learn.microsoft.com/">a link</a>.</p>`.repeat(10) },
  }
}

async function run(): Promise<BenchRow[]> {
  const messages = Array.from({ length: MESSAGES }, (_, i) => message(i))
  const pages = Array.from({ length: MESSAGES / 100 }, (_, p) => messages.slice(p * 100, (p + 1) * 100))
  const ms = await startFakeMicrosoft(pages)
  const ghost = await startFakeGhost()
  for (let i = 0; i < ALREADY_PUBLISHED; i++) ghost.addPost(`mc${700000 + i}`, { tags: [{ id: 't', name: 'mc', slug: 'm365-message-center' }] })
  for (let i = 0; i < DUPLICATES; i++) ghost.addPost(`mc${700000 + i}-2`)
  for (let i = 0; i < OTHER_POSTS; i++) ghost.addPost(`post-${i}`)
  const key = randomBytes(16).toString('hex')
  const app = await startApp({
    ...ms.env(),
    GHOST_URL: ghost.url,
    GHOST_CONTENT_API_KEY: ghost.contentKey,
    GHOST_ADMIN_API_KEY: ghost.adminKey,
    INTERNAL_API_KEYS: key,
    RATE_LIMIT_DISABLED: 'true',
    UPSTREAM_TIMEOUT_MS: '30000',
  })
  const rows: BenchRow[] = []
  const job = async (group: string, path: string) => {
    const before = { ghost: ghost.upstream.requests.length, ms: ms.upstream.requests.length }
    const t0 = performance.now()
    const res = await fetch(`${app.url}${path}`, { method: 'POST', headers: { 'x-tc-api-key': key } })
    const ms_ = performance.now() - t0
    const body = await res.json()
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`)
    const calls = ghost.upstream.requests.length - before.ghost + ms.upstream.requests.length - before.ms
    const note = Object.entries(body)
      .filter(([, v]) => typeof v === 'number')
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
    rows.push({ group, name: 'wall time', value: ms_, unit: 'ms', note }, { group, name: 'upstream calls', value: calls, unit: 'calls' })
    return { ms: ms_, body }
  }
  try {
    await job('publish dry run (600 messages, 2000 posts)', '/api/office/messagecenter/publish?dryRun=true')
    await job('publish, 100 new posts', '/api/office/messagecenter/publish?limit=100')
    await job('publish again (nothing new)', '/api/office/messagecenter/publish?limit=100')
    await job('deduplicate dry run', '/api/office/messagecenter/deduplicate')
    await job('deduplicate, delete 100', '/api/office/messagecenter/deduplicate?dryRun=false')

    const inProcess = await load(`${app.url}/api/policies`, { connections: 10, durationS: DURATION_S })
    await fetch(`${app.url}/api/blog/posts`)
    const ghostBefore = ghost.upstream.requests.length
    const cachedRead = await load(`${app.url}/api/blog/posts`, { connections: 10, durationS: DURATION_S })
    const group = 'GET /api/blog/posts (cached) vs GET /api/policies'
    rows.push(
      { group, name: 'requests/s', value: cachedRead.requestsPerSec, unit: 'req/s', baseline: inProcess.requestsPerSec, baselineName: 'policies' },
      { group, name: 'p99 latency', value: cachedRead.p99Ms, unit: 'ms', baseline: inProcess.p99Ms, baselineName: 'policies' },
      { group, name: 'Ghost calls during the load', value: ghost.upstream.requests.length - ghostBefore, unit: 'calls', note: 'one per 60 s TTL at most' },
    )
  } finally {
    await app.stop()
    await ghost.close()
    await ms.close()
  }
  return rows
}

export default { name: 'message-center', run } satisfies Scenario

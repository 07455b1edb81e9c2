// The posting heatmap on a fake PDS with 50 accounts × 500 posts: the cold computation (time and
// upstream calls the PDS received) against the cached repeat.
import { medianMs, type BenchRow, type Scenario } from '../lib'
import { startApp } from '../../test-support/app'
import { createFakePds, postRecord, type FakeAccount } from '../../test-support/fake-pds'
import { startFakeUpstream } from '../../test-support/fake-upstream'

const ACCOUNTS = 50
const POSTS = 500

async function run(): Promise<BenchRow[]> {
  const now = Date.now()
  const yearStart = Date.UTC(new Date(now).getUTCFullYear(), 0, 1)
  const span = Math.max(1, now - 3_600_000 - yearStart)
  const accounts: FakeAccount[] = Array.from({ length: ACCOUNTS }, (_, a) => ({
    did: `did:plc:${String.fromCharCode(97 + (a % 26))}${String.fromCharCode(97 + Math.floor(a / 26))}${'q'.repeat(22)}`,
    records: {
      'app.bsky.feed.post': Array.from({ length: POSTS }, (_, p) => {
        const t = Math.floor(yearStart + (span * (p + 0.5)) / POSTS)
        return postRecord(new Date(t).toISOString(), t, a)
      }),
    },
  }))
  const pds = createFakePds({ accounts, describeServer: '{"did":"did:web:pds.test","availableUserDomains":[".pds.test"]}', health: '{"version":"bench"}' })
  const upstream = await startFakeUpstream(pds.handler)
  const app = await startApp({ PDS_URL: upstream.url, LOG_LEVEL: 'error' })
  try {
    const url = `${app.url}/api/pds/blueskyHeatmap`
    const fetchHeatmap = async () => {
      const res = await fetch(url)
      if (res.status !== 200) throw new Error(`heatmap answered ${res.status}: ${await res.text()}`)
      return (await res.json()) as Record<string, number>
    }
    const t0 = performance.now()
    const heatmap = await fetchHeatmap()
    const coldMs = performance.now() - t0
    const coldCalls = upstream.requests.length
    const posts = Object.values(heatmap).reduce((a, b) => a + b, 0)
    if (posts !== ACCOUNTS * POSTS) throw new Error(`heatmap counted ${posts} posts, expected ${ACCOUNTS * POSTS}`)
    const cachedMs = await medianMs(20, fetchHeatmap)
    const cachedCalls = upstream.requests.length - coldCalls
    const group = 'pds-heatmap'
    return [
      {
        group,
        name: 'cold heatmap',
        value: coldMs,
        unit: 'ms',
        baseline: cachedMs,
        baselineName: 'cached repeat',
        note: `${ACCOUNTS} accounts × ${POSTS} posts`,
      },
      { group, name: 'cached repeat (median of 20)', value: cachedMs, unit: 'ms' },
      { group, name: 'upstream calls, cold', value: coldCalls, unit: 'calls', note: 'listRepos pages + listRecords pages (100 per page)' },
      { group, name: 'upstream calls, 20 cached repeats', value: cachedCalls, unit: 'calls' },
    ]
  } finally {
    await app.stop()
    await upstream.close()
  }
}

export default { name: 'pds-heatmap', run } satisfies Scenario

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'

// The embedded defaults show data in every dataset: the first start of a fresh PGlite directory
// seeds marked demonstration rows into the gateway datasets (the request log fills by itself), the
// query page says how to load real logs and remove them, `npm run db:seed -- --remove-demo` removes
// them (real rows stay) and a later start does not bring them back.

const dir = mkdtempSync(path.join(tmpdir(), 'demo-itest-'))
let app: RunningApp
// Every dataset but the request log, which fills as the API is used.
const DEMO = ['dns', 'http', 'network', 'sessions', 'job_runs', 'domain_checks']
const start = () => startApp({ NODE_ENV: 'production', PGLITE_DIR: dir, QUERY_DEMO_ROWS: '60' })

async function count(dataset: string, filter?: string): Promise<number> {
  const today = new Date().toISOString().slice(0, 10)
  const from = new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 10)
  const res = await fetch(`${app.url}/query/api/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: app.url, cookie: app.operatorCookie },
    body: JSON.stringify({ dataset, dateFrom: from, dateTo: today, ...(filter ? { filter } : {}) }),
  })
  expect(res.status, await res.clone().text()).toBe(200)
  return (await res.json()).count
}

beforeAll(async () => {
  app = await start()
}, 120_000)

afterAll(async () => {
  await app?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe('demonstration rows on the embedded defaults', () => {
  it('seeds every gateway and job-history dataset at the first start, all marked demo, and none in the request log', async () => {
    for (const dataset of DEMO) {
      expect(await count(dataset), dataset).toBe(60)
      expect(await count(dataset, 'demo = false'), dataset).toBe(0)
    }
    expect(await count('requests', 'demo = true')).toBe(0)
  }, 60_000)

  it('says on the query page how to load real logs and how to remove the demo rows', async () => {
    const html = await (await fetch(`${app.url}/query?dataset=dns&range=7d`, { headers: { cookie: app.operatorCookie } })).text()
    expect(html).toContain('data-testid="demo-note"')
    expect(html).toContain('/query/ingest/dns')
    expect(html).toContain('npm run db:seed -- --remove-demo')
    const jobs = await (await fetch(`${app.url}/query?dataset=job_runs&range=7d`, { headers: { cookie: app.operatorCookie } })).text()
    expect(jobs).toContain('data-testid="demo-note"')
    expect(jobs).toContain('npm run job -- &lt;name&gt;')
    expect(jobs).not.toContain('/query/ingest/job_runs')
    const requests = await (await fetch(`${app.url}/query?dataset=requests`, { headers: { cookie: app.operatorCookie } })).text()
    expect(requests).not.toContain('data-testid="demo-note"')
  })

  it('removes them with npm run db:seed -- --remove-demo, and a later start does not seed again', async () => {
    await app.stop()
    const r = spawnSync('npm', ['run', '--silent', 'db:seed', '--', '--remove-demo'], {
      env: { ...process.env, PGLITE_DIR: dir, DATABASE_URL: '' },
      encoding: 'utf8',
    })
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/removed 360 demo rows from PGlite at .*: requests 0, dns 60, http 60, network 60, sessions 60, job_runs 60, domain_checks 60/)
    app = await start()
    for (const dataset of DEMO) expect(await count(dataset), dataset).toBe(0)
    const html = await (await fetch(`${app.url}/query?dataset=dns&range=7d`, { headers: { cookie: app.operatorCookie } })).text()
    expect(html).not.toContain('data-testid="demo-note"')
  }, 120_000)
})

import { spawnSync } from 'node:child_process'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestKey, signToken, startJwksServer, TEST_AUDIENCE, TEST_ISSUER, type JwksServer, type TestKey } from '../../test-support/access-keys'
import { startApp, type RunningApp } from '../../test-support/app'
import { ensureDatabase } from '@/scripts/ensure-database.mjs'

// What the application tells a person about where it runs, read from where it really runs: the
// refusal page names this start's own origin and port, the OpenAPI document's server is the origin
// it was requested at (so the reference's Test Request and its curl samples work on any port), and
// the note beside demonstration rows names the real database and where the dataset's real rows
// come from. Every server here listens on a free port, never the default 3000.

const pgBase = process.env.QUERY_TEST_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/qd_test'
const pgUrl = (() => {
  const u = new URL(pgBase)
  u.pathname = `${u.pathname}_hints`
  return u.toString()
})()

/** GET with a Host header of our choosing (fetch does not let a caller set one). */
function getWithHost(app: RunningApp, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: app.port, path, headers: { host } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (body += d))
      res.on('end', () => resolve(body))
    })
    req.on('error', reject)
    req.end()
  })
}

const get = (app: RunningApp, path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers, redirect: 'manual' })

describe('embedded defaults on a port of their own', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp({ NODE_ENV: 'production', PUBLIC_BASE_URL: '' })
  }, 90_000)
  afterAll(() => app?.stop())

  it('refuses a browser without the key with a page that names this start’s origin and port, without backticks', async () => {
    expect(app.port).not.toBe(3000)
    const res = await get(app, '/query')
    expect(res.status).toBe(401)
    const html = await res.text()
    expect(html).toContain(`http://127.0.0.1:${app.port}/query?key=…`)
    expect(html).not.toContain('127.0.0.1:3000')
    expect(html).not.toContain('`')
  })

  it('serves the OpenAPI document with this server as its server, at whatever origin it was asked for', async () => {
    const doc = await (await get(app, '/api/openapi.json')).json()
    expect(doc.servers[0]).toEqual({ url: `http://127.0.0.1:${app.port}/api`, description: 'This server' })
    const other = JSON.parse(await getWithHost(app, '/api/openapi.json', `localhost:${app.port}`))
    expect(other.servers[0].url).toBe(`http://localhost:${app.port}/api`)
    const proxied = await (await get(app, '/api/openapi.json', { 'x-forwarded-host': 'api.example.net', 'x-forwarded-proto': 'https' })).json()
    expect(proxied.servers[0].url).toBe('https://api.example.net/api')
    // Nothing else depends on the origin.
    expect({ ...other, servers: doc.servers }).toEqual(doc)
  })

  it('answers the reference’s Test Request at the server the document names', async () => {
    const doc = await (await get(app, '/api/openapi.json')).json()
    const res = await fetch(`${doc.servers[0].url}/health`, { headers: { origin: app.url } })
    expect(res.status).toBe(200)
    expect((await res.json()).status).toMatch(/ok|degraded/)
  })
})

describe('with PUBLIC_BASE_URL set', () => {
  let app: RunningApp
  beforeAll(async () => {
    app = await startApp({ PUBLIC_BASE_URL: 'https://api.hints.test' })
  }, 90_000)
  afterAll(() => app?.stop())

  it('keeps the configured production server, whatever the request’s origin', async () => {
    const res = await get(app, '/api/openapi.json')
    expect(res.headers.get('vary') ?? '').not.toMatch(/host/i)
    const doc = await res.json()
    expect(doc.servers[0]).toEqual({ url: 'https://api.hints.test/api', description: 'Production' })
  })
})

describe('a Postgres deployment with demonstration rows', () => {
  let app: RunningApp
  let jwks: JwksServer
  let key: TestKey
  beforeAll(async () => {
    await ensureDatabase(pgUrl)
    key = await createTestKey('hints')
    jwks = await startJwksServer([key])
    // A deployment: Postgres behind the access policy.
    app = await startApp({ NODE_ENV: 'production', DATABASE_URL: pgUrl, ACCESS_JWKS_URL: jwks.url, ACCESS_AUDIENCE: TEST_AUDIENCE, ACCESS_ISSUER: TEST_ISSUER })
    const seed = spawnSync('npm', ['run', '--silent', 'db:seed', '--', '--rows', '30', '--days', '1', '--datasets', 'requests,dns'], {
      env: { ...process.env, DATABASE_URL: pgUrl },
      encoding: 'utf8',
    })
    expect(seed.status, seed.stderr).toBe(0)
  }, 180_000)
  afterAll(async () => {
    await app?.stop()
    await jwks?.close()
  })

  const page = async (dataset: string) => {
    const res = await get(app, `/query?dataset=${dataset}`, { 'cf-access-jwt-assertion': await signToken(key) })
    expect(res.status).toBe(200)
    return res.text()
  }

  it('says where the request log’s demo rows came from and where its real rows come from, without a Logpush path', async () => {
    const html = await page('requests')
    expect(html).toContain('data-testid="demo-note"')
    expect(html).not.toContain('first started')
    expect(html).not.toContain('/query/ingest/requests')
    expect(html).not.toContain('Logpush')
    expect(html).toMatch(/written by <code>npm run db:seed<\/code>/)
    expect(html).toContain('the API writes one for each request it answers')
  })

  it('points Logpush at the ingest path only for a dataset ingest takes', async () => {
    const html = await page('dns')
    expect(html).toContain('<code>/query/ingest/dns</code>')
    expect(html).not.toContain('first started')
    // Ingest takes this path.
    const res = await fetch(`${app.url}/query/ingest/requests`, { method: 'POST' })
    expect(res.status).not.toBe(200)
  })
})

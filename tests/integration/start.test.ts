import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'

// What `npm start` gives on a fresh clone: a loopback listener unless HOST says otherwise, the
// embedded database, and public/ (favicon, robots.txt).

let app: RunningApp

beforeAll(async () => {
  // HOST empty: as when it is not set at all.
  app = await startApp({ NODE_ENV: 'production', HOST: '', LOG_LEVEL: 'info' })
}, 90_000)

afterAll(() => app?.stop())

describe('npm start on the embedded defaults', () => {
  it('listens on 127.0.0.1 when HOST is not set, on the embedded database', async () => {
    expect(app.logs()).toContain(`listening on http://127.0.0.1:${app.port}`)
    expect(app.logs()).toMatch(/"msg":"database ready","driver":"pglite"/)
    expect(app.logs()).toContain('Only this machine can connect. To listen publicly: HOST=0.0.0.0 npm start')
  })

  it('serves robots.txt keeping crawlers off the API and the query application', async () => {
    const res = await fetch(`${app.url}/robots.txt`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    const lines = (await res.text()).split('\n')
    expect(lines).toContain('User-agent: *')
    expect(lines).toContain('Disallow: /api')
    expect(lines).toContain('Disallow: /query')
    expect(lines).not.toContain('Disallow: /')
  })

  it('serves the favicon the pages link to', async () => {
    const html = await (await fetch(`${app.url}/`)).text()
    expect(html).toMatch(/<link rel="icon" href="\/favicon.svg" type="image\/svg\+xml"\/?>/)
    const icon = await fetch(`${app.url}/favicon.svg`)
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
    expect(await icon.text()).toMatch(/^<svg /)
  })
})

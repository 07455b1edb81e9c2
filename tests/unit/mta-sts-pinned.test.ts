import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'

// DNS rebinding: the policy host's name is checked through DNS-over-HTTPS, and the fetch must then
// connect to the address that passed the check, never resolve the name again. Two loopback HTTPS
// servers on one port: 127.0.0.1, where the system resolver sends `localhost` (the rebinding
// target), and 127.0.0.2, standing for the checked address. Certificates: tests/fixtures/tls.

const tls = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url), 'utf8')

interface Listener {
  server: Server
  connections: number
  servernames: string[]
}
function listen(address: string, port: number, body: string): Promise<Listener> {
  const listener: Listener = { server: createServer({ cert: tls('localhost.pem'), key: tls('localhost.key') }), connections: 0, servernames: [] }
  listener.server.on('connection', () => listener.connections++)
  listener.server.on('request', (req, res) => {
    listener.servernames.push((req.socket as unknown as { servername?: string }).servername ?? '')
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body)
  })
  return new Promise((resolve, reject) => {
    listener.server.once('error', reject)
    listener.server.listen(port, address, () => resolve(listener))
  })
}

const rebound = await listen('127.0.0.1', 0, 'rebinding target')
const port = (rebound.server.address() as AddressInfo).port
const checked = await listen('127.0.0.2', port, 'checked address')
process.env.MTA_STS_URL_TEMPLATE = `https://{domain}:${port}/.well-known/mta-sts.txt`
// Set before anything loads the configuration.
const { fetchMtaStsPolicy, pinnedDispatcher } = await import('@/lib/domains/upstream')
const { upstreamFetch } = await import('@/lib/upstream/http')
afterAll(async () => {
  for (const l of [rebound, checked]) await new Promise<void>((r) => l.server.close(() => r()))
})

describe('pinned policy host connection', () => {
  it('goes to the checked address, with the name as SNI and its certificate verified', async () => {
    const before = rebound.connections
    const res = await upstreamFetch('test', `https://localhost:${port}/.well-known/mta-sts.txt`, {
      dispatcher: pinnedDispatcher(['127.0.0.2'], { ca: tls('test-ca.pem') }),
      retries: 0,
    })
    expect(res.text()).toBe('checked address')
    expect(checked.servernames.at(-1)).toBe('localhost')
    expect(rebound.connections).toBe(before)
  })

  it('still checks the certificate against the name, not the address', async () => {
    const error = await upstreamFetch('test', `https://mta-sts.elsewhere.test:${port}/.well-known/mta-sts.txt`, {
      dispatcher: pinnedDispatcher(['127.0.0.2'], { ca: tls('test-ca.pem') }),
      retries: 0,
    }).catch((e: Error & { details?: { detail?: string } }) => e.details?.detail ?? e.message)
    // Reached 127.0.0.2 (a name no resolver knows), then refused: the certificate is for localhost.
    expect(error).toMatch(/Hostname\/IP does not match certificate's altnames|ERR_TLS_CERT_ALTNAME_INVALID/)
  })

  it('fetchMtaStsPolicy connects to the address the check passed, not to what the system resolver says', async () => {
    const before = rebound.connections
    // The check's resolver says 8.8.8.8 (public: passes); the system resolver says 127.0.0.1.
    const r = await fetchMtaStsPolicy('localhost', 500, async () => ['8.8.8.8'])
    expect(r.url).toBe(`https://localhost:${port}/.well-known/mta-sts.txt`)
    expect(r.ok).toBe(false) // 8.8.8.8 does not serve this port (or is out of reach here)
    expect(rebound.connections).toBe(before)
  })
})

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

// A real HTTP server on loopback standing in for an upstream service. Tests give it a handler and
// read back every request it received.

export interface ReceivedRequest {
  method: string
  url: string
  path: string
  query: URLSearchParams
  headers: IncomingMessage['headers']
  body: Buffer
}

export type FakeHandler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>

export interface FakeUpstream {
  url: string
  requests: ReceivedRequest[]
  setHandler(handler: FakeHandler): void
  close(): Promise<void>
}

export async function startFakeUpstream(handler: FakeHandler): Promise<FakeUpstream> {
  const requests: ReceivedRequest[] = []
  let current = handler
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const u = new URL(req.url ?? '/', 'http://x')
    const received: ReceivedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: u.pathname,
      query: u.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    }
    requests.push(received)
    try {
      await current(received, res)
    } catch (error) {
      if (!res.headersSent) res.writeHead(599)
      res.end(String(error))
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (h) => (current = h),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(text)
}

/** A recorded payload from tests/fixtures/ (see tests/fixtures/SOURCES.md for provenance). */
export function fixture(path: string): string {
  return readFileSync(fileURLToPath(new URL(`../tests/fixtures/${path}`, import.meta.url)), 'utf8')
}

export const fixtureJson = <T = unknown>(path: string): T => JSON.parse(fixture(path)) as T

import { setTimeout as sleep } from 'node:timers/promises'
import { randomBytes, randomUUID } from 'node:crypto'
import type { Fault } from './fake-ghost'
import { fixtureJson, sendJson, startFakeUpstream, type FakeUpstream } from './fake-upstream'

// Microsoft's login endpoint (client-credentials token) and Graph's Message Center list on one
// loopback server. By default page one is the docs example (PascalCase enum values) and its
// nextLink leads to page two, four real messages; `pages` replaces them.

export interface FakeMicrosoft {
  upstream: FakeUpstream
  url: string
  tenant: string
  clientId: string
  secret: string
  fault: { prefix: string; kind: Fault } | null
  /** Issues a new token from now on; the old one is refused (as after a revocation). */
  rotateToken(): void
  /** Env for the app under test. */
  env(): Record<string, string>
  close(): Promise<void>
}

export async function startFakeMicrosoft(pages?: unknown[][]): Promise<FakeMicrosoft> {
  const tenant = randomUUID()
  const clientId = randomUUID()
  const secret = randomBytes(12).toString('hex')
  let token = randomBytes(24).toString('hex')
  const docsPage = fixtureJson<{ value: unknown[] }>('microsoft-graph/serviceAnnouncement-messages-list-docs-example.json')
  const realPage = fixtureJson<{ value: unknown[] }>('microsoft-graph/serviceAnnouncement-messages-list-value-4-real-messages.json')
  const valuePages = pages ?? [docsPage.value, realPage.value]
  const ms = { tenant, clientId, secret, fault: null } as FakeMicrosoft

  ms.upstream = await startFakeUpstream(async (req, res) => {
    if (ms.fault && req.path.startsWith(ms.fault.prefix)) {
      if (ms.fault.kind === 'status500') return sendJson(res, 500, { error: { code: 'InternalServerError', message: 'Failure' } })
      if (ms.fault.kind === 'malformed') return sendJson(res, 200, '{"value": [ {"id": "MC1"')
      if (ms.fault.kind === 'timeout') {
        await sleep(10_000)
        return sendJson(res, 200, {})
      }
    }
    if (req.method === 'POST' && req.path === `/${tenant}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(req.body.toString())
      const ok =
        form.get('grant_type') === 'client_credentials' &&
        form.get('client_id') === clientId &&
        form.get('client_secret') === secret &&
        form.get('scope') === `${ms.upstream.url}/.default`
      if (!ok) return sendJson(res, 401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' })
      return sendJson(res, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token })
    }
    if (req.path === '/v1.0/admin/serviceAnnouncement/messages') {
      if (req.headers.authorization !== `Bearer ${token}`)
        return sendJson(res, 401, { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } })
      const index = Number(req.query.get('$skip') ?? 0) / 100
      const next = index + 1 < valuePages.length ? `${ms.upstream.url}/v1.0/admin/serviceAnnouncement/messages?$skip=${(index + 1) * 100}` : undefined
      return sendJson(res, 200, {
        '@odata.context': docsPage['@odata.context' as keyof typeof docsPage],
        ...(next ? { '@odata.nextLink': next } : {}),
        value: valuePages[index] ?? [],
      })
    }
    sendJson(res, 404, fixtureJson('microsoft-graph/serviceAnnouncement-error-resource-not-exist-for-tenant.json'))
  })
  ms.url = ms.upstream.url
  ms.env = () => ({ MS_LOGIN_URL: ms.url, MS_GRAPH_URL: ms.url, MS_TENANT_ID: tenant, MS_CLIENT_ID: clientId, MS_CLIENT_SECRET: secret })
  ms.rotateToken = () => (token = randomBytes(24).toString('hex'))
  ms.close = () => ms.upstream.close()
  return ms
}

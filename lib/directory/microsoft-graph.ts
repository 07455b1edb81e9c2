import 'server-only'
import { config, type Config } from '@/lib/config'
import { GraphErrorPayload, GraphTenantInformationPayload, GraphTokenPayload } from '@/lib/directory/schemas'
import { cached, singleFlight } from '@/lib/upstream/cache'
import { parseUpstreamJson, upstreamFetch, UpstreamStatus } from '@/lib/upstream/http'

// Adapter for Microsoft Graph's tenant lookup (findTenantInformationByTenantId/ByDomainName), the
// only public route from a tenant GUID to its display name and default domain. It needs an app
// registration with CrossTenantInformation.ReadBasic.All: MS_TENANT_ID, MS_CLIENT_ID and
// MS_CLIENT_SECRET. Without them the lookup is not attempted.

const UPSTREAM = 'Microsoft Graph'
const TENANT_TTL_S = 6 * 3600
const STALE_S = 24 * 3600
// Renew the token this long before Microsoft says it expires.
const TOKEN_MARGIN_S = 300

export interface GraphTenant {
  tenantId: string
  displayName: string | null
  defaultDomainName: string | null
  federationBrandName: string | null
}

export const graphConfigured = (c: Config = config) => Boolean(c.MS_TENANT_ID && c.MS_CLIENT_ID && c.MS_CLIENT_SECRET)

const graphBase = () => config.MS_GRAPH_URL.replace(/\/+$/, '')
const orNull = (s: string | null | undefined) => (s && s.trim() ? s.trim() : null)

/** A tenantInformation body, or a Graph error body: Directory_ObjectNotFound means no such tenant (null). */
export function parseTenantInformation(status: number, body: string): GraphTenant | null {
  if (status >= 200 && status < 300) {
    const t = parseUpstreamJson(UPSTREAM, body, GraphTenantInformationPayload)
    return {
      tenantId: t.tenantId.toLowerCase(),
      displayName: orNull(t.displayName),
      defaultDomainName: orNull(t.defaultDomainName)?.toLowerCase() ?? null,
      federationBrandName: orNull(t.federationBrandName),
    }
  }
  const err = parseUpstreamJson(UPSTREAM, body, GraphErrorPayload)
  if (err.error.code === 'Directory_ObjectNotFound') return null
  throw new UpstreamStatus(UPSTREAM, status, `${err.error.code}: ${err.error.message ?? ''}`.slice(0, 300))
}

let token: { value: string; renewAt: number } | undefined

// Kept in process memory only: a bearer token does not belong in a shared store.
async function accessToken(): Promise<string> {
  if (token && token.renewAt > Date.now()) return token.value
  return singleFlight('ms-graph-token', async () => {
    const url = `${config.MS_LOGIN_URL.replace(/\/+$/, '')}/${encodeURIComponent(config.MS_TENANT_ID!)}/oauth2/v2.0/token`
    const res = await upstreamFetch(UPSTREAM, url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: config.MS_CLIENT_ID!,
        client_secret: config.MS_CLIENT_SECRET!,
        scope: `${graphBase()}/.default`,
      }).toString(),
    })
    const t = parseUpstreamJson(UPSTREAM, res.text(), GraphTokenPayload)
    token = { value: t.access_token, renewAt: Date.now() + Math.max(0, t.expires_in - TOKEN_MARGIN_S) * 1000 }
    return t.access_token
  })
}

/** Display name and default domain of a tenant; null when Graph does not know it. Requires graphConfigured(). */
export async function findTenantInformation(by: { tenantId: string } | { domainName: string }): Promise<GraphTenant | null> {
  // Tenant ids and domain names are validated before they get here; OData quotes would be doubled.
  const fn =
    'tenantId' in by ? `findTenantInformationByTenantId(tenantId='${by.tenantId}')` : `findTenantInformationByDomainName(domainName='${by.domainName}')`
  const { value } = await cached(`ms-graph:${fn.toLowerCase()}`, { ttlS: TENANT_TTL_S, staleS: STALE_S }, async () => {
    try {
      const res = await upstreamFetch(UPSTREAM, `${graphBase()}/v1.0/tenantRelationships/${fn}`, {
        headers: { authorization: `Bearer ${await accessToken()}`, accept: 'application/json' },
        acceptStatus: [400, 404],
      })
      return { value: parseTenantInformation(res.status, res.text()) }
    } catch (error) {
      // A revoked or rotated credential: fetch a new token next time instead of reusing this one.
      if (error instanceof UpstreamStatus && error.upstreamStatus === 401) token = undefined
      throw error
    }
  })
  return value
}

import 'server-only'
import { config } from '@/lib/config'
import { CredentialTypePayload, MicrosoftIdentityErrorPayload, OpenIdConfigurationPayload, UserRealmPayload } from '@/lib/directory/schemas'
import { AppError } from '@/lib/errors'
import { cached } from '@/lib/upstream/cache'
import { parseUpstreamJson, upstreamFetch, UpstreamMalformed, UpstreamStatus } from '@/lib/upstream/http'

// Adapter for Microsoft's public sign-in endpoints at MS_LOGIN_URL: OpenID discovery (tenant id,
// region), the user realm (namespace type, federation brand) and the credential type (branding,
// desktop SSO, unmanaged, sign-up). Upstream field names stop here.

const UPSTREAM = 'Microsoft login'
// A tenant's id and region do not move, but a domain can move between tenants and a tenant can be
// created at any time, so answers (including "no such tenant") are kept for an hour. The last good
// answer is served for a day when the login service fails.
const OPENID_TTL_S = 3600
const SIGN_IN_TTL_S = 3600
const STALE_S = 24 * 3600
// The realm and credential-type endpoints answer about a user; a fixed throwaway local part keeps
// the question about the domain's tenant, never about a person.
const PROBE_USER = 'tenant-lookup'

const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i
const base = () => config.MS_LOGIN_URL.replace(/\/+$/, '')

export interface OpenIdTenant {
  tenantId: string
  region: string | null
  regionSubScope: string | null
  cloudInstance: string | null
}

export interface UserRealm {
  namespaceType: 'Managed' | 'Federated' | 'Unknown'
  federationBrandName: string | null
  cloudInstance: string | null
}

export interface CredentialType {
  bannerLogo: string | null
  desktopSsoEnabled: boolean
  isUnmanaged: boolean
  signupDisallowed: boolean
}

const orNull = (s: string | null | undefined) => (s && s.trim() ? s.trim() : null)

/** v2 issuer `https://login.microsoftonline.com/{tid}/v2.0`, v1 `https://sts.windows.net/{tid}/`. */
export function tenantIdFromIssuer(issuer: string): string | null {
  let path: string
  try {
    path = new URL(issuer).pathname
  } catch {
    return null
  }
  const first = path.split('/').filter(Boolean)[0] ?? ''
  const m = GUID.exec(first)
  return m && m[0].length === first.length ? first.toLowerCase() : null
}

/** Discovery answer → tenant facts, or null when the login service says the tenant does not exist. */
export function parseOpenIdConfiguration(status: number, body: string): OpenIdTenant | null {
  if (status !== 200) {
    const err = parseUpstreamJson(UPSTREAM, body, MicrosoftIdentityErrorPayload)
    // HTTP 400 invalid_tenant / AADSTS90002: no tenant has this id or verified domain.
    if (err.error === 'invalid_tenant' || err.error_codes?.includes(90002)) return null
    throw new UpstreamStatus(UPSTREAM, status, body.slice(0, 300))
  }
  const doc = parseUpstreamJson(UPSTREAM, body, OpenIdConfigurationPayload)
  const tenantId = tenantIdFromIssuer(doc.issuer)
  if (!tenantId) throw new UpstreamMalformed(UPSTREAM, 'issuer without a tenant id')
  return {
    tenantId,
    region: orNull(doc.tenant_region_scope),
    regionSubScope: orNull(doc.tenant_region_sub_scope),
    cloudInstance: orNull(doc.cloud_instance_name),
  }
}

export function parseUserRealm(body: string): UserRealm {
  const realm = parseUpstreamJson(UPSTREAM, body, UserRealmPayload)
  const type = realm.NameSpaceType
  return {
    namespaceType: type === 'Managed' || type === 'Federated' ? type : 'Unknown',
    federationBrandName: orNull(realm.FederationBrandName),
    cloudInstance: orNull(realm.CloudInstanceName),
  }
}

export function parseCredentialType(body: string): CredentialType {
  const ct = parseUpstreamJson(UPSTREAM, body, CredentialTypePayload)
  // A non-zero ThrottleStatus means the service answered without looking: the flags are not facts.
  if (ct.ThrottleStatus)
    throw new AppError('upstream_failed', 'Microsoft is throttling sign-in lookups for now; try again in a few minutes.', {
      upstream: UPSTREAM,
      retryAfterSeconds: 120,
    })
  const branding = ct.EstsProperties?.UserTenantBranding ?? []
  return {
    bannerLogo: orNull(branding.find((b) => orNull(b.BannerLogo))?.BannerLogo),
    // Only present when enabled; absence means off.
    desktopSsoEnabled: ct.EstsProperties?.DesktopSsoEnabled === true,
    isUnmanaged: ct.IsUnmanaged === true,
    signupDisallowed: ct.IsSignupDisallowed === true,
  }
}

/** Tenant id and region for a tenant GUID or a domain; null when no such tenant exists. */
export async function fetchOpenIdTenant(tenant: string): Promise<OpenIdTenant | null> {
  // Wrapped so that "no such tenant" (null) is cached like an answer, not mistaken for a miss.
  const { value } = await cached(`ms-openid:${tenant.toLowerCase()}`, { ttlS: OPENID_TTL_S, staleS: STALE_S }, async () => {
    const url = `${base()}/${encodeURIComponent(tenant)}/v2.0/.well-known/openid-configuration`
    const res = await upstreamFetch(UPSTREAM, url, { headers: { accept: 'application/json' }, acceptStatus: [400, 404] })
    return { value: parseOpenIdConfiguration(res.status, res.text()) }
  })
  return value
}

export function fetchUserRealm(domain: string): Promise<UserRealm> {
  return cached(`ms-realm:${domain}`, { ttlS: SIGN_IN_TTL_S, staleS: STALE_S }, async () => {
    const login = encodeURIComponent(`${PROBE_USER}@${domain}`)
    const res = await upstreamFetch(UPSTREAM, `${base()}/getuserrealm.srf?login=${login}&json=1`, { headers: { accept: 'application/json' } })
    return parseUserRealm(res.text())
  })
}

/** One POST per domain and hour at most: the endpoint is throttled and is a user-enumeration oracle. */
export function fetchCredentialType(domain: string): Promise<CredentialType> {
  return cached(`ms-credtype:${domain}`, { ttlS: SIGN_IN_TTL_S, staleS: STALE_S }, async () => {
    const res = await upstreamFetch(UPSTREAM, `${base()}/common/GetCredentialType`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ Username: `${PROBE_USER}@${domain}` }),
    })
    return parseCredentialType(res.text())
  })
}

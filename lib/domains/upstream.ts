import 'server-only'
import ipaddr from 'ipaddr.js'
import { config } from '@/lib/config'
import { resolveAddresses } from '@/lib/dns/resolver'
import { AppError } from '@/lib/errors'
import { upstreamFetch } from '@/lib/upstream/http'

// The MTA-STS policy host (RFC 8461 §3.3): HTTPS GET of /.well-known/mta-sts.txt with no redirects
// followed, status 200, media type text/plain and a size cap. Every failure is a fact about the
// domain's policy, so it comes back as a reason rather than an exception.

const UPSTREAM = 'MTA-STS policy host'
/** RFC 8461 §3.3 lets senders cap the policy size; 64 KiB is the customary cap. */
export const POLICY_MAX_BYTES = 64 * 1024
const ALL_NON_2XX = Array.from({ length: 500 }, (_, i) => i + 100).filter((s) => s < 200 || s > 299)

export type PolicyFetch = { ok: true; url: string; text: string } | { ok: false; url: string; reason: string }

export const policyUrl = (domain: string) => config.MTA_STS_URL_TEMPLATE.replaceAll('{domain}', domain)

export function isPublicAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'unicast'
  } catch {
    return false
  }
}

/**
 * Whoever owns the checked domain chooses where `mta-sts.{domain}` points, so a host derived from
 * it must resolve to public addresses only, or the check would probe our own network. (The fetch
 * resolves again; this narrows, not closes, the window for DNS rebinding.)
 */
export async function policyHostProblem(url: string, domain: string, addressesOf: (host: string) => Promise<string[]>): Promise<string | null> {
  const host = new URL(url).hostname.toLowerCase()
  if (host !== domain && !host.endsWith(`.${domain}`)) return null // a fixed host from the operator's template
  const addresses = await addressesOf(host)
  if (addresses.length === 0) return `${host} has no A or AAAA record`
  const internal = addresses.filter((a) => !isPublicAddress(a))
  return internal.length ? `${host} resolves to a non-public address (${internal.join(', ')}); not fetched` : null
}

export async function fetchMtaStsPolicy(
  domain: string,
  timeoutMs = config.UPSTREAM_TIMEOUT_MS,
  addressesOf: (host: string) => Promise<string[]> = resolveAddresses,
): Promise<PolicyFetch> {
  const url = policyUrl(domain)
  try {
    const problem = await policyHostProblem(url, domain, addressesOf)
    if (problem) return { ok: false, url, reason: problem }
    const res = await upstreamFetch(UPSTREAM, url, {
      noRedirects: true,
      maxBytes: POLICY_MAX_BYTES,
      acceptStatus: ALL_NON_2XX,
      timeoutMs,
      headers: { accept: 'text/plain' },
    })
    if (res.status >= 300 && res.status < 400)
      return { ok: false, url, reason: `HTTP ${res.status} redirect; senders do not follow redirects for MTA-STS policies` }
    if (res.status !== 200) return { ok: false, url, reason: `HTTP ${res.status}` }
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'text/plain') return { ok: false, url, reason: `media type "${type || 'none'}"; it must be text/plain` }
    return { ok: true, url, text: res.text() }
  } catch (error) {
    return { ok: false, url, reason: error instanceof AppError || error instanceof Error ? error.message : String(error) }
  }
}

import 'server-only'
import { isIPv6, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { Agent } from 'undici'
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

/** The guard's verdict on a policy host: why not to fetch it, or the addresses to connect to (null: resolve as usual). */
export type PolicyHostCheck = { ok: false; reason: string } | { ok: true; addresses: string[] | null }

/**
 * Whoever owns the checked domain chooses where `mta-sts.{domain}` points, so a host derived from
 * it must resolve to public addresses only, or the check would probe our own network. The fetch
 * then connects to these very addresses (pinnedDispatcher): a second resolution could answer
 * differently (DNS rebinding).
 */
export async function checkPolicyHost(url: string, domain: string, addressesOf: (host: string) => Promise<string[]>): Promise<PolicyHostCheck> {
  const host = new URL(url).hostname.toLowerCase()
  if (host !== domain && !host.endsWith(`.${domain}`)) return { ok: true, addresses: null } // a fixed host from the operator's template
  const addresses = await addressesOf(host)
  if (addresses.length === 0) return { ok: false, reason: `${host} has no A or AAAA record` }
  const internal = addresses.filter((a) => !isPublicAddress(a))
  if (internal.length) return { ok: false, reason: `${host} resolves to a non-public address (${internal.join(', ')}); not fetched` }
  return { ok: true, addresses }
}

/**
 * An undici dispatcher whose connections go to `addresses` whatever name the URL holds: its lookup
 * answers with them instead of asking the system resolver. TLS still sends the URL's name (SNI)
 * and checks the certificate against it. `tls`: extra trust for tests.
 */
export function pinnedDispatcher(addresses: string[], tls: { ca?: string } = {}): Agent {
  const all = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }))
  const lookup: LookupFunction = (_host, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all
    if (wanted.length === 0) return callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0)
    if (options.all) return callback(null, wanted)
    callback(null, wanted[0].address, wanted[0].family)
  }
  return new Agent({ connect: { ...tls, lookup } })
}

export async function fetchMtaStsPolicy(
  domain: string,
  timeoutMs = config.UPSTREAM_TIMEOUT_MS,
  addressesOf: (host: string) => Promise<string[]> = resolveAddresses,
): Promise<PolicyFetch> {
  const url = policyUrl(domain)
  let dispatcher: Agent | undefined
  try {
    const host = await checkPolicyHost(url, domain, addressesOf)
    if (!host.ok) return { ok: false, url, reason: host.reason }
    dispatcher = host.addresses ? pinnedDispatcher(host.addresses) : undefined
    const res = await upstreamFetch(UPSTREAM, url, {
      noRedirects: true,
      maxBytes: POLICY_MAX_BYTES,
      acceptStatus: ALL_NON_2XX,
      timeoutMs,
      headers: { accept: 'text/plain' },
      dispatcher,
    })
    if (res.status >= 300 && res.status < 400)
      return { ok: false, url, reason: `HTTP ${res.status} redirect; senders do not follow redirects for MTA-STS policies` }
    if (res.status !== 200) return { ok: false, url, reason: `HTTP ${res.status}` }
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'text/plain') return { ok: false, url, reason: `media type "${type || 'none'}"; it must be text/plain` }
    return { ok: true, url, text: res.text() }
  } catch (error) {
    return { ok: false, url, reason: error instanceof AppError || error instanceof Error ? error.message : String(error) }
  } finally {
    void dispatcher?.destroy().catch(() => {})
  }
}

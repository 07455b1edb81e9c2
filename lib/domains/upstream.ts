import 'server-only'
import { config } from '@/lib/config'
import { AppError } from '@/lib/http/errors'
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

export async function fetchMtaStsPolicy(domain: string, timeoutMs = config.UPSTREAM_TIMEOUT_MS): Promise<PolicyFetch> {
  const url = policyUrl(domain)
  try {
    const res = await upstreamFetch(UPSTREAM, url, {
      noRedirects: true,
      maxBytes: POLICY_MAX_BYTES,
      acceptStatus: ALL_NON_2XX,
      timeoutMs,
      headers: { accept: 'text/plain' },
    })
    if (res.status >= 300 && res.status < 400) return { ok: false, url, reason: `HTTP ${res.status} redirect; senders do not follow redirects for MTA-STS policies` }
    if (res.status !== 200) return { ok: false, url, reason: `HTTP ${res.status}` }
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'text/plain') return { ok: false, url, reason: `media type "${type || 'none'}"; it must be text/plain` }
    return { ok: true, url, text: res.text() }
  } catch (error) {
    return { ok: false, url, reason: error instanceof AppError || error instanceof Error ? error.message : String(error) }
  }
}

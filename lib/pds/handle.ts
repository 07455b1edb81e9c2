// atproto handle rules (https://atproto.com/specs/handle) and the service-domain rules the
// reference PDS applies to handles under its own user domains. Pure functions: the schema, the
// service and the tests share them.

// Resolution of these TLDs is disallowed by the handle spec, so no handle under them can work.
const DISALLOWED_TLDS = new Set(['local', 'arpa', 'invalid', 'localhost', 'internal', 'example', 'alt', 'onion'])

/** The first handle-syntax rule `raw` breaks, as a sentence; null when the handle is well formed. */
export function handleSyntaxProblem(raw: string): string | null {
  const handle = raw.trim()
  if (handle === '') return 'a handle is required'
  if (handle.startsWith('@')) return 'give the handle without the leading "@" (e.g. alice.example.com)'
  const bad = handle.match(/[^A-Za-z0-9.-]/)
  if (bad) return `only ASCII letters, digits, hyphens and dots are allowed (found "${bad[0]}")`
  if (handle.length > 253) return `must be at most 253 characters (got ${handle.length})`
  if (handle.endsWith('.')) return 'must not end with a dot'
  const labels = handle.split('.')
  if (labels.length < 2) return 'needs at least two labels separated by a dot (e.g. alice.example.com)'
  for (const label of labels) {
    if (label === '') return 'must not contain an empty label (a leading dot or two dots in a row)'
    if (label.length > 63) return `each label must be at most 63 characters ("${label.slice(0, 20)}…" has ${label.length})`
    if (label.startsWith('-') || label.endsWith('-')) return `labels must not start or end with a hyphen ("${label}")`
  }
  const tld = labels.at(-1)!.toLowerCase()
  if (/^\d/.test(tld)) return `the last label must not start with a digit ("${tld}")`
  if (DISALLOWED_TLDS.has(tld)) return `the top-level domain ".${tld}" is reserved and cannot be used for handles`
  return null
}

export const normalizeHandle = (raw: string) => raw.trim().toLowerCase()

// Names the reference PDS refuses under its service domains because they impersonate the service
// or its staff. The PDS holds the full list (and a slur filter) and applies it at sign-up; this is
// the common core so obvious cases are answered without a sign-up attempt.
export const RESERVED_NAMES = new Set([
  'about',
  'abuse',
  'account',
  'accounts',
  'admin',
  'administrator',
  'api',
  'app',
  'appview',
  'atproto',
  'auth',
  'billing',
  'blog',
  'bluesky',
  'bot',
  'bsky',
  'careers',
  'contact',
  'dev',
  'developer',
  'docs',
  'download',
  'email',
  'feed',
  'feeds',
  'ftp',
  'help',
  'home',
  'info',
  'jobs',
  'legal',
  'login',
  'mail',
  'moderation',
  'moderator',
  'mod',
  'news',
  'official',
  'owner',
  'password',
  'pds',
  'plc',
  'policy',
  'postmaster',
  'press',
  'privacy',
  'relay',
  'root',
  'safety',
  'security',
  'settings',
  'shop',
  'signup',
  'staff',
  'status',
  'support',
  'system',
  'team',
  'terms',
  'test',
  'tos',
  'trust',
  'verify',
  'webmaster',
  'www',
])

export interface ServiceDomainCheck {
  /** The user domain (e.g. `.bsky.social`) the handle falls under, or null for a custom domain. */
  domain: string | null
  /** A rule the PDS treats as an invalid handle (its `InvalidHandle` error): answered with 400. */
  invalid: string | null
  /** A reason the PDS refuses an otherwise valid handle (`HandleNotAvailable`). */
  unavailable: string | null
}

/** Applies the service-domain rules to a normalised handle, given describeServer's `availableUserDomains`. */
export function checkServiceDomain(handle: string, userDomains: readonly string[]): ServiceDomainCheck {
  const domain = userDomains.map((d) => (d.startsWith('.') ? d : `.${d}`).toLowerCase()).find((d) => handle.endsWith(d))
  if (!domain) return { domain: null, invalid: null, unavailable: null }
  const front = handle.slice(0, -domain.length)
  if (front.includes('.')) return { domain, invalid: `under ${domain} the handle must be a single name before the domain (no dots)`, unavailable: null }
  if (front.length < 3) return { domain, invalid: `under ${domain} the name before the domain must be at least 3 characters`, unavailable: null }
  if (front.length > 18) return { domain, invalid: `under ${domain} the name before the domain must be at most 18 characters`, unavailable: null }
  if (RESERVED_NAMES.has(front)) return { domain, invalid: null, unavailable: `"${front}" is a reserved name on this service` }
  return { domain, invalid: null, unavailable: null }
}

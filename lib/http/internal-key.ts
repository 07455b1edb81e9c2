import { createHash, timingSafeEqual } from 'node:crypto'
import { config } from '@/lib/config'
import { INTERNAL_KEY_HEADER } from '@/lib/http/headers'

const digest = (s: string) => createHash('sha256').update(s).digest()

/**
 * True when the presented key matches one of INTERNAL_API_KEYS. Several keys may be valid at once
 * so a key can be rotated without downtime. Digests make the comparison constant-time whatever the
 * lengths, and every key is compared so timing does not reveal which one matched.
 */
export function isValidInternalKey(presented: string | null, keys: readonly string[] = config.INTERNAL_API_KEYS): boolean {
  if (!presented || keys.length === 0) return false
  const given = digest(presented)
  let ok = false
  for (const key of keys) ok = timingSafeEqual(given, digest(key)) || ok
  return ok
}

export function internalKeyProblem(presented: string | null): string | null {
  if (config.INTERNAL_API_KEYS.length === 0) return 'Internal operations are disabled: no internal API key is configured.'
  if (!presented) return `Missing API key: send it in the ${INTERNAL_KEY_HEADER} header.`
  if (!isValidInternalKey(presented)) return 'Invalid API key.'
  return null
}

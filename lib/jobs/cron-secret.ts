import 'server-only'
import { createHash, timingSafeEqual } from 'node:crypto'
import { config } from '@/lib/config'
import type { ErrorCode } from '@/lib/errors'

// The cron routes' secret check, apart from the routes (lib/jobs/cron.ts) so that the API gate can
// tell a scheduler's call from a guess without loading the jobs.

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Equal-length SHA-256 digests compared with timingSafeEqual: no timing signal from the secret's length or content. */
export function isCronSecret(presented: string, secret: string): boolean {
  return timingSafeEqual(digest(presented), digest(secret))
}

/** Null when the Authorization header carries the configured secret; else the refusal. */
export function cronAuthProblem(authorization: string | null, secret: string | undefined = config.CRON_SECRET): { code: ErrorCode; message: string } | null {
  if (!secret) return { code: 'forbidden', message: 'Cron routes are disabled: CRON_SECRET is not configured.' }
  const m = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null
  if (!m) return { code: 'unauthorized', message: 'Missing cron secret: send Authorization: Bearer <CRON_SECRET>.' }
  if (!isCronSecret(m[1], secret)) return { code: 'unauthorized', message: 'Invalid cron secret.' }
  return null
}

import 'server-only'
import { createHash, timingSafeEqual } from 'node:crypto'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { INGEST_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { LOGPUSH_SECRET_HEADER } from '@/lib/http/headers'
import { QUERY_PREFIX } from '@/lib/access/query-host'

// The ingest route's shared secret, apart from the route (lib/ingest/logpush.ts) so that the query
// gate and server.mjs's body limit can check it without loading the database.

/** The shared secret: `X-Logpush-Secret: <secret>` or `Authorization: Bearer <secret>`. */
export function checkIngestSecret(headers: Headers, secret = config.LOGPUSH_SECRET): void {
  if (!secret) throw new AppError('not_configured', 'Ingest is disabled: LOGPUSH_SECRET is not set.')
  const bearer = headers.get('authorization')?.match(/^Bearer\s+(.+)$/i)?.[1]
  const given = headers.get(LOGPUSH_SECRET_HEADER) ?? bearer
  if (!given) throw new AppError('unauthorized', `Missing ${LOGPUSH_SECRET_HEADER} header.`)
  const digest = (s: string) => createHash('sha256').update(s).digest()
  if (!timingSafeEqual(digest(given), digest(secret))) throw new AppError('forbidden', `Wrong ${LOGPUSH_SECRET_HEADER}.`)
}

/** The ingest route's body limit (lib/gate/body-limit.ts): only a sender holding the secret may send a large batch; anyone else is refused unread. */
export function ingestBodyLimit(path: string, headers: Headers): number | undefined {
  if (!path.startsWith(`${QUERY_PREFIX}/ingest/`)) return undefined
  try {
    checkIngestSecret(headers)
    return INGEST_BODY_MAX_BYTES
  } catch {
    return 0
  }
}

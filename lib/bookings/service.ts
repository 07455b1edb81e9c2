import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'

/** Where `user`'s bookings page is; 404 when an allow-list is configured and the user is not on it. */
export function bookingsUrl(user: string, template = config.BOOKINGS_URL_TEMPLATE, allowed: readonly string[] = config.BOOKINGS_USERS): string {
  if (allowed.length > 0 && !allowed.some((u) => u.toLowerCase() === user.toLowerCase())) throw new AppError('not_found', `No bookings page for "${user}".`)
  const url = template.replaceAll('{user}', encodeURIComponent(user))
  if (!URL.canParse(url)) throw new AppError('not_configured', 'BOOKINGS_URL_TEMPLATE does not give a valid URL.')
  return url
}

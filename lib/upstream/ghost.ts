import { config } from '@/lib/config'

// What the blog (Content API) and Message Center publishing (Admin API) share about Ghost.

export const GHOST = 'Ghost'
/** Ghost answers with the newest format a client declares; v5.0 is understood by Ghost 5 and 6. */
export const GHOST_ACCEPT_VERSION = 'v5.0'

/** Base URL of a Ghost API (`content` or `admin`), or null when GHOST_URL is unset. */
export function ghostApiBase(api: 'content' | 'admin', ghostUrl = config.GHOST_URL): string | null {
  if (!ghostUrl) return null
  const root = ghostUrl.endsWith('/') ? ghostUrl : `${ghostUrl}/`
  return new URL(`ghost/api/${api}/`, root).toString()
}

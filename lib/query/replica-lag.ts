import 'server-only'
import { config } from '@/lib/config'
import { getReadyDatabase, type Database, type ReplicaLag } from '@/lib/db/client'
import { log } from '@/lib/log'
import { withTimeout } from '@/lib/timeout'

// What the query pages say when the replica they read (QUERY_DATABASE_URL) is behind: past
// QUERY_REPLICA_LAG_NOTE_S, how far. The reading is cached for a few seconds in lib/db, so a page
// does not pay a round trip for it each time.

/** A lag reading that takes longer is left out of the page (the page's own queries say whether the replica answers). */
const LAG_READ_TIMEOUT_MS = 1000

/** "12 s", "4 min", "3 h 20 min": how far behind, to the unit a reader cares about. */
export function formatLag(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 120) return `${s} s`
  if (s < 7200) return `${Math.round(s / 60)} min`
  const h = Math.floor(s / 3600)
  const min = Math.round((s % 3600) / 60)
  return min ? `${h} h ${min} min` : `${h} h`
}

/** The sentence for a lag past `thresholdS` seconds; null when the data is close enough to the primary (or the lag is unknown). */
export function lagNote(lag: ReplicaLag, thresholdS: number): string | null {
  if (lag.seconds === null || lag.seconds <= thresholdS) return null
  const behind = formatLag(lag.seconds)
  return lag.paused
    ? `The data shown is about ${behind} behind: this page reads a replica of the database whose replay is paused, so rows written in the last ${behind} do not show yet.`
    : `The data shown is about ${behind} behind: this page reads a replica of the database that is catching up, so rows written in the last ${behind} may not show yet.`
}

/** The note for the query pages, or null (no replica, caught up, or the lag could not be read). */
export async function replicaLagNote(database?: Database): Promise<string | null> {
  try {
    const replica = (database ?? (await getReadyDatabase())).replica
    if (!replica) return null
    return lagNote(await withTimeout(replica.lag(), LAG_READ_TIMEOUT_MS), config.QUERY_REPLICA_LAG_NOTE_S)
  } catch (error) {
    log.debug('replica lag unavailable', { error: error instanceof Error ? error.message : String(error) })
    return null
  }
}

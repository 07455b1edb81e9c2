import 'server-only'
import { config } from '@/lib/config'
import { cached } from '@/lib/upstream/cache'
import { upstreamJson } from '@/lib/upstream/http'
import { dispatcherFor } from '@/lib/deviceos/apple-tls'
import { GdmfFeed, SofaFeed } from '@/lib/deviceos/schemas'
import { gdmfReleases, macCatalog, sofaReleases, type MacCatalog, type Release } from '@/lib/deviceos/versions'

// Adapters for Apple's device-management feed (gdmf) and the SOFA feeds built from it. Feeds
// change a few times a month: each is kept for an hour and, when a reload fails, its last good
// copy is served for up to a week. Only the reduced form (releases, board map) is cached.

const FEED_TTL_S = 3600
const FEED_STALE_S = 7 * 24 * 3600

export type SofaOs = 'macos' | 'watchos' | 'tvos'

/** Every public release in Apple's feed (all platforms; the service filters by device). */
export function loadGdmfReleases(): Promise<Release[]> {
  return cached('deviceos:gdmf', { ttlS: FEED_TTL_S, staleS: FEED_STALE_S }, async () => {
    const { data } = await upstreamJson('Apple software update feed', config.APPLE_GDMF_URL, GdmfFeed, {
      dispatcher: dispatcherFor(config.APPLE_GDMF_URL),
    })
    return gdmfReleases(data)
  })
}

export interface SofaData {
  releases: Release[]
  /** macOS feed only. */
  mac: MacCatalog | null
}

/** One SOFA feed, reduced to its releases (and, for macOS, the model ↔ board ID catalogue). */
export function loadSofa(os: SofaOs): Promise<SofaData> {
  return cached(`deviceos:sofa:${os}`, { ttlS: FEED_TTL_S, staleS: FEED_STALE_S }, async () => {
    const url = `${config.SOFA_FEED_URL.replace(/\/+$/, '')}/${os}_data_feed.json`
    const { data } = await upstreamJson(`SOFA ${os} feed`, url, SofaFeed)
    return { releases: sofaReleases(data), mac: os === 'macos' ? macCatalog(data) : null }
  })
}

import { compareVersions } from 'compare-versions'
import { DEVICE_MODEL_PATTERN, type GdmfFeed, type SofaFeed } from '@/lib/deviceos/schemas'

// Pure logic: which OS a model runs, the releases the feeds list, and the highest one for a model.
// Versions are compared numerically (18.7.10 > 18.7.8), never as strings.

export type Os = 'iOS' | 'iPadOS' | 'macOS' | 'watchOS' | 'tvOS' | 'visionOS' | 'HomePod software'

/** Identifier family → OS. gdmf's `iOS` set also carries watchOS, tvOS and HomePod releases, so the family decides. */
const FAMILIES: Record<string, { family: string; os: Os }> = Object.fromEntries(
  (
    [
      ['iPhone', 'iOS'],
      ['iPod', 'iOS'],
      ['iPad', 'iPadOS'],
      ['Watch', 'watchOS'],
      ['AppleTV', 'tvOS'],
      ['AudioAccessory', 'HomePod software'],
      ['RealityDevice', 'visionOS'],
      ['Mac', 'macOS'],
      ['MacBook', 'macOS'],
      ['MacBookAir', 'macOS'],
      ['MacBookPro', 'macOS'],
      ['Macmini', 'macOS'],
      ['MacPro', 'macOS'],
      ['iMac', 'macOS'],
      ['iMacPro', 'macOS'],
    ] as const
  ).map(([family, os]) => [family.toLowerCase(), { family, os }]),
)

export interface DeviceModel {
  /** Identifier with the family spelt as Apple spells it (`iphone15,2` → `iPhone15,2`). */
  id: string
  family: string
  os: Os
}

/** The model's canonical identifier and OS; null for a well-formed identifier of a family we do not know. */
export function identifyModel(input: string): DeviceModel | null {
  const m = DEVICE_MODEL_PATTERN.exec(input)
  if (!m) return null
  const known = FAMILIES[m[1].toLowerCase()]
  if (!known) return null
  return { id: `${known.family}${Number(m[2])},${Number(m[3])}`, family: known.family, os: known.os }
}

export interface Release {
  version: string
  build: string
  /** ISO 8601 date-time (feeds give `2026-08-17` or `2026-08-17T00:00:00Z`). */
  posted: string
  devices: string[]
}

/** `2026-08-17` and `2026-08-17T00:00:00Z` → `2026-08-17T00:00:00Z`; anything else is kept as given. */
export function toIsoDateTime(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00Z`
  const t = Date.parse(value)
  return Number.isNaN(t) ? value : new Date(t).toISOString().replace('.000Z', 'Z')
}

const isVersion = (v: string) => /^\d+(\.\d+)*$/.test(v)

export function gdmfReleases(feed: GdmfFeed): Release[] {
  return Object.values(feed.PublicAssetSets)
    .flat()
    .filter((e) => isVersion(e.ProductVersion))
    .map((e) => ({ version: e.ProductVersion, build: e.Build, posted: toIsoDateTime(e.PostingDate), devices: e.SupportedDevices }))
}

/** Every SOFA release that names its devices (some old ones list none). */
export function sofaReleases(feed: SofaFeed): Release[] {
  return feed.OSVersions.flatMap((major) => [major.Latest, ...major.SecurityReleases])
    .filter((r) => isVersion(r.ProductVersion) && (r.SupportedDevices?.length ?? 0) > 0)
    .map((r) => ({
      version: r.ProductVersion,
      build: r.Build ?? '',
      posted: r.ReleaseDate ? toIsoDateTime(r.ReleaseDate) : '',
      devices: r.SupportedDevices ?? [],
    }))
}

export interface MacCatalog {
  /** Model identifier → board IDs (`Mac14,2` → `J413AP`; Intel models → `Mac-…` and `J…AP`). */
  boards: Record<string, string[]>
  /** Model identifier → majors SOFA says it supports, for models whose board ID SOFA does not list. */
  majors: Record<string, number[]>
  /** Major → SOFA's latest release of that major. */
  latestByMajor: Record<string, Release>
}

/** macOS releases list board IDs, not model identifiers; SOFA's macOS feed carries the mapping. */
export function macCatalog(feed: SofaFeed): MacCatalog {
  const boards: Record<string, string[]> = {}
  for (const [board, device] of Object.entries(feed.Devices ?? {})) {
    if (device.DeviceID) (boards[device.DeviceID] ??= []).push(board)
  }
  const majors = Object.fromEntries(Object.entries(feed.Models ?? {}).map(([model, m]) => [model, m.OSVersions]))
  const latestByMajor: Record<string, Release> = {}
  for (const { OSVersion, Latest } of feed.OSVersions) {
    const major = /(\d+)\s*$/.exec(OSVersion)?.[1] // "Tahoe 26" → 26
    if (!major || !isVersion(Latest.ProductVersion)) continue
    latestByMajor[major] = {
      version: Latest.ProductVersion,
      build: Latest.Build ?? '',
      posted: Latest.ReleaseDate ? toIsoDateTime(Latest.ReleaseDate) : '',
      devices: [],
    }
  }
  return { boards, majors, latestByMajor }
}

/** Releases for a Mac: gdmf and SOFA entries matching its board IDs, plus SOFA's per-major latest for its supported majors. */
export function macReleasesFor(model: string, catalog: MacCatalog, releases: Release[]): { ids: string[]; releases: Release[] } {
  const ids = [model, ...(catalog.boards[model] ?? [])]
  const fromMajors = (catalog.majors[model] ?? [])
    .map((major) => catalog.latestByMajor[String(major)])
    .filter((r): r is Release => r !== undefined)
    .map((r) => ({ ...r, devices: [model] }))
  return { ids, releases: [...releases, ...fromMajors] }
}

const major = (v: string) => v.split('.')[0]

export interface Latest {
  latest: Release
  perMajor: Release[]
}

/**
 * The highest release listing any of `ids`, plus the newest of each major. One version can appear
 * several times (two builds, two feeds): the earliest posting wins, then the shorter build.
 */
export function latestFor(ids: readonly string[], releases: readonly Release[]): Latest | null {
  const wanted = new Set(ids)
  const byVersion = new Map<string, Release>()
  for (const r of releases) {
    if (!r.devices.some((d) => wanted.has(d))) continue
    const key = r.version
      .split('.')
      .map(Number)
      .join('.')
      .replace(/(\.0)+$/, '')
    const seen = byVersion.get(key)
    if (!seen || better(r, seen)) byVersion.set(key, r)
  }
  const sorted = [...byVersion.values()].sort((a, b) => compareVersions(b.version, a.version))
  if (sorted.length === 0) return null
  const perMajor = sorted.filter((r, i) => sorted.findIndex((x) => major(x.version) === major(r.version)) === i)
  return { latest: sorted[0], perMajor }
}

function better(a: Release, b: Release): boolean {
  if (a.posted !== b.posted) return !b.posted || (a.posted !== '' && a.posted < b.posted)
  if (!a.build !== !b.build) return a.build !== ''
  return (a.build.length - b.build.length || a.build.localeCompare(b.build)) < 0
}

/** Whether `latest` is higher than `current`; a Rapid Security Response suffix (`26.3.1 (a)`) does not count. */
export function isUpdateRequired(latest: string, current: string): boolean {
  return compareVersions(latest, current.replace(/\s*\([a-z]\)$/, '')) > 0
}

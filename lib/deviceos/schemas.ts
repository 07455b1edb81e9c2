import { z } from 'zod'
import { Support } from '@/lib/support'

// ---- Inputs ------------------------------------------------------------------------------------

/** Family name, number, comma, number: `iPhone15,2`, `Mac14,2`, `Watch7,1`, `AppleTV14,1`. */
export const DEVICE_MODEL_PATTERN = /^([A-Za-z]+)(\d{1,4}),(\d{1,4})$/

export const DeviceOsParams = z.object({
  deviceModel: z
    .string()
    .regex(DEVICE_MODEL_PATTERN, { error: 'must be a hardware identifier: family name, number, comma, number (for example iPhone15,2 or Mac14,2)' })
    .meta({ description: 'Apple hardware identifier (family name, number, comma, number)', examples: ['iPhone15,2'] }),
})
export type DeviceOsParams = z.infer<typeof DeviceOsParams>

/** Numeric dotted version, optionally with a Rapid Security Response letter: `18.7.8`, `26.3.1 (a)`. */
export const OS_VERSION_PATTERN = /^\d{1,4}(\.\d{1,4}){0,3}( \([a-z]\))?$/

export const DeviceOsQuery = z.object({
  currentOSVersion: z
    .string()
    .regex(OS_VERSION_PATTERN, { error: 'must be a dotted version number such as 18.7.8' })
    .optional()
    .meta({
      description: 'Version installed on the device. When given, `updateRequired` says whether `latestVersion` is higher; an empty value counts as absent.',
      examples: ['18.7.8'],
    }),
})
export type DeviceOsQuery = z.infer<typeof DeviceOsQuery>

// ---- Output ------------------------------------------------------------------------------------

export const OsRelease = z
  .object({
    version: z.string().meta({ examples: ['18.7.10'] }),
    build: z.string().meta({ examples: ['22H374'] }),
    updatePosted: z.string().meta({ description: 'When Apple posted the release (ISO 8601)', examples: ['2026-08-17T00:00:00Z'] }),
  })
  .meta({ id: 'OsRelease' })
export type OsRelease = z.infer<typeof OsRelease>

export const DeviceOsVersion = z
  .object({
    deviceModel: z.string().meta({ examples: ['iPhone15,2'] }),
    os: z.string().meta({ description: 'iOS, iPadOS, macOS, watchOS, tvOS, visionOS or HomePod software', examples: ['iOS'] }),
    latestVersion: z.string().meta({ description: 'Highest version Apple offers this model (numeric comparison)', examples: ['26.6.1'] }),
    updatePosted: z.string().meta({ description: 'When that version was posted (ISO 8601)', examples: ['2026-08-17T00:00:00Z'] }),
    updateRequired: z.boolean().nullable().meta({ description: '`latestVersion` is higher than `currentOSVersion`; null when no current version was given' }),
    errorMessage: z.string().nullable().meta({ description: 'Null on success' }),
    support: Support,
    // Beyond the fields existing clients were promised: always sent, declared optional so the required
    // set stays the one they rely on.
    build: z
      .string()
      .optional()
      .meta({ description: 'Build of `latestVersion`', examples: ['23G83'] }),
    latestPerMajor: z.array(OsRelease).optional().meta({ description: 'Newest release of each major version this model can run, newest first' }),
  })
  .meta({ id: 'DeviceOsVersion' })
export type DeviceOsVersion = z.infer<typeof DeviceOsVersion>

// ---- Upstream payloads -------------------------------------------------------------------------

const GdmfEntry = z.object({
  ProductVersion: z.string(),
  Build: z.string(),
  PostingDate: z.string(),
  SupportedDevices: z.array(z.string()),
})

/** gdmf.apple.com/v2/pmv. Only the public sets matter: `AssetSets` also holds deferred, older builds. */
export const GdmfFeed = z.object({ PublicAssetSets: z.record(z.string(), z.array(GdmfEntry)) })
export type GdmfFeed = z.infer<typeof GdmfFeed>

const SofaRelease = z.object({
  ProductVersion: z.string(),
  Build: z.string().nullish(),
  ReleaseDate: z.string().nullish(),
  SupportedDevices: z.array(z.string()).nullish(),
})

/** sofafeed.macadmins.io/v2/<os>_data_feed.json (macOS adds board IDs and models). */
export const SofaFeed = z.object({
  OSVersions: z.array(z.object({ OSVersion: z.string(), Latest: SofaRelease, SecurityReleases: z.array(SofaRelease).default([]) })),
  Devices: z.record(z.string(), z.object({ DeviceID: z.string().optional(), MarketingName: z.string().optional() })).optional(),
  Models: z.record(z.string(), z.object({ OSVersions: z.array(z.number()).default([]) })).optional(),
})
export type SofaFeed = z.infer<typeof SofaFeed>

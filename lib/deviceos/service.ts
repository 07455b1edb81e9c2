import 'server-only'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { support } from '@/lib/support'
import type { DeviceOsQuery, DeviceOsVersion } from '@/lib/deviceos/schemas'
import { loadGdmfReleases, loadSofa, type SofaData, type SofaOs } from '@/lib/deviceos/upstream'
import { identifyModel, isUpdateRequired, latestFor, macReleasesFor, type Release } from '@/lib/deviceos/versions'

export interface DeviceOsDeps {
  gdmf: () => Promise<Release[]>
  sofa: (os: SofaOs) => Promise<SofaData>
}

const defaultDeps: DeviceOsDeps = { gdmf: loadGdmfReleases, sofa: loadSofa }

/** SOFA feeds each family needs: macOS for the board-ID map, watchOS/tvOS to complete Apple's feed. */
const SOFA_FOR: Partial<Record<string, SofaOs>> = { macOS: 'macos', watchOS: 'watchos', tvOS: 'tvos' }

// GET /api/deviceosversion/{deviceModel} - highest OS version Apple offers a model
export async function getDeviceOsVersion(deviceModel: string, query: DeviceOsQuery, deps: DeviceOsDeps = defaultDeps): Promise<DeviceOsVersion> {
  const model = identifyModel(deviceModel)
  if (!model)
    throw new AppError(
      'not_found',
      `No Apple OS is known for "${deviceModel}": its family is not an Apple device family (iPhone, iPad, iPod, Mac…, Watch, AppleTV, AudioAccessory, RealityDevice).`,
    )
  const sofaOs = SOFA_FOR[model.os]
  // Fetched together. Apple's feed is required; SOFA is required for Macs (board IDs) and only
  // completes Apple's data for watchOS/tvOS, so there its failure matters only when Apple's
  // feed alone has no answer.
  const [gdmf, sofa] = await Promise.all([
    deps.gdmf(),
    sofaOs
      ? deps.sofa(sofaOs).then(
          (data) => ({ data }),
          (error: unknown) => ({ error }),
        )
      : null,
  ])
  const sofaData = sofa && 'data' in sofa ? sofa.data : null
  const sofaFailure = sofa && 'error' in sofa ? sofa.error : undefined
  if (sofaFailure && model.os === 'macOS') throw sofaFailure
  let ids = [model.id]
  let releases = [...gdmf, ...(sofaData?.releases ?? [])]
  if (sofaData?.mac) ({ ids, releases } = macReleasesFor(model.id, sofaData.mac, releases))
  const found = latestFor(ids, releases)
  if (!found && sofaFailure) throw sofaFailure
  if (!found)
    throw new AppError(
      'not_found',
      `No OS release in Apple's feeds lists ${model.id}. Check the identifier (Settings › General › About, or \`sysctl hw.model\` on a Mac).`,
    )
  if (sofaFailure) log.warn("SOFA feed unavailable; answering from Apple's feed alone", { os: sofaOs, error: String(sofaFailure) })
  const { latest, perMajor } = found
  return {
    deviceModel: model.id,
    os: model.os,
    latestVersion: latest.version,
    updatePosted: latest.posted,
    updateRequired: query.currentOSVersion === undefined ? null : isUpdateRequired(latest.version, query.currentOSVersion),
    errorMessage: null,
    support: support(),
    build: latest.build,
    latestPerMajor: perMajor.map((r) => ({ version: r.version, build: r.build, updatePosted: r.posted })),
  }
}

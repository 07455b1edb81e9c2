import { describe, expect, it } from 'vitest'
import { AppError } from '@/lib/errors'
import { DeviceOsVersion, GdmfFeed, SofaFeed } from '@/lib/deviceos/schemas'
import { getDeviceOsVersion, type DeviceOsDeps } from '@/lib/deviceos/service'
import { gdmfReleases, macCatalog, sofaReleases } from '@/lib/deviceos/versions'
import { fixtureJson } from '../../test-support/fake-upstream'

const gdmf = gdmfReleases(GdmfFeed.parse(fixtureJson('apple-gdmf/pmv-2026-08-22.json')))
const sofa = (name: string) => SofaFeed.parse(fixtureJson(`sofa/v2-${name}_data_feed-2026-08-22.json`))

function deps(): DeviceOsDeps & { sofaAsked: string[] } {
  const sofaAsked: string[] = []
  return {
    sofaAsked,
    gdmf: async () => gdmf,
    sofa: async (os) => {
      sofaAsked.push(os)
      const feed = sofa(os)
      return { releases: sofaReleases(feed), mac: os === 'macos' ? macCatalog(feed) : null }
    },
  }
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as AppError,
  )

describe('getDeviceOsVersion', () => {
  it('returns the record for an iPhone without asking SOFA', async () => {
    const d = deps()
    const r = await getDeviceOsVersion('iPhone15,2', {}, d)
    expect(DeviceOsVersion.safeParse(r).success).toBe(true)
    expect(r).toMatchObject({
      deviceModel: 'iPhone15,2',
      os: 'iOS',
      latestVersion: '26.6.1',
      updatePosted: '2026-08-17T00:00:00Z',
      updateRequired: null,
      errorMessage: null,
    })
    expect(d.sofaAsked).toEqual([])
  })

  it('compares currentOSVersion numerically', async () => {
    expect((await getDeviceOsVersion('iPhone11,2', { currentOSVersion: '18.7.8' }, deps())).updateRequired).toBe(true)
    expect((await getDeviceOsVersion('iPhone11,2', { currentOSVersion: '18.7.10' }, deps())).updateRequired).toBe(false)
  })

  it("maps a Mac through SOFA's board IDs and a Watch through SOFA's watchOS feed", async () => {
    const d = deps()
    expect(await getDeviceOsVersion('Mac14,2', {}, d)).toMatchObject({ os: 'macOS', latestVersion: '26.6.2', build: '25G83' })
    expect(await getDeviceOsVersion('Watch7,1', {}, d)).toMatchObject({ os: 'watchOS', latestVersion: '26.6' })
    expect(d.sofaAsked).toEqual(['macos', 'watchos'])
  })

  it('canonicalises the family spelling', async () => {
    expect((await getDeviceOsVersion('ipad7,11', {}, deps())).deviceModel).toBe('iPad7,11')
  })

  it('is 404 for an unknown family or a model no feed lists', async () => {
    expect((await rejection(getDeviceOsVersion('Pixel8,1', {}, deps())))?.status).toBe(404)
    expect((await rejection(getDeviceOsVersion('iPhone99,9', {}, deps())))?.status).toBe(404)
  })

  it('passes a feed failure through', async () => {
    const d = { ...deps(), gdmf: async () => Promise.reject(new AppError('upstream_failed', 'feed down')) }
    expect((await rejection(getDeviceOsVersion('iPhone15,2', {}, d)))?.status).toBe(502)
  })
})

describe('when SOFA is down', () => {
  const down = () => ({ ...deps(), sofa: async () => Promise.reject(new AppError('upstream_failed', 'SOFA down')) })

  it("a Watch is still answered from Apple's feed, which lists it", async () => {
    expect(await getDeviceOsVersion('Watch7,1', {}, down())).toMatchObject({ os: 'watchOS', latestVersion: '26.6' })
  })

  it('a Mac is an upstream failure: its board IDs come from SOFA', async () => {
    expect((await rejection(getDeviceOsVersion('Mac14,2', {}, down())))?.message).toBe('SOFA down')
  })

  it("a model Apple's feed does not list is an upstream failure, not a 404", async () => {
    expect((await rejection(getDeviceOsVersion('Watch99,1', {}, down())))?.status).toBe(502)
  })
})

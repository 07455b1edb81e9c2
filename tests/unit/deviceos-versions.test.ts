import { describe, expect, it } from 'vitest'
import { GdmfFeed, SofaFeed } from '@/lib/deviceos/schemas'
import {
  gdmfReleases,
  identifyModel,
  isUpdateRequired,
  latestFor,
  macCatalog,
  macReleasesFor,
  sofaReleases,
  toIsoDateTime,
  type Release,
} from '@/lib/deviceos/versions'
import { fixtureJson } from '../../test-support/fake-upstream'

const gdmf = gdmfReleases(GdmfFeed.parse(fixtureJson('apple-gdmf/pmv-2026-08-22.json')))
const gdmf2024 = gdmfReleases(GdmfFeed.parse(fixtureJson('apple-gdmf/pmv-2024-09-03-with-xrOS-key.json')))
const macFeed = SofaFeed.parse(fixtureJson('sofa/v2-macos_data_feed-2026-08-22.json'))
const watchFeed = SofaFeed.parse(fixtureJson('sofa/v2-watchos_data_feed-2026-08-22.json'))
const tvFeed = SofaFeed.parse(fixtureJson('sofa/v2-tvos_data_feed-2026-08-22.json'))

const versionsOf = (r: ReturnType<typeof latestFor>) => r?.perMajor.map((x) => x.version)

describe('identifyModel', () => {
  it.each([
    ['iPhone15,2', 'iPhone15,2', 'iOS'],
    ['iphone15,2', 'iPhone15,2', 'iOS'],
    ['iPod9,1', 'iPod9,1', 'iOS'],
    ['iPad7,11', 'iPad7,11', 'iPadOS'],
    ['Mac14,2', 'Mac14,2', 'macOS'],
    ['MacBookPro15,2', 'MacBookPro15,2', 'macOS'],
    ['iMac19,1', 'iMac19,1', 'macOS'],
    ['Watch7,1', 'Watch7,1', 'watchOS'],
    ['AppleTV14,1', 'AppleTV14,1', 'tvOS'],
    ['AudioAccessory5,1', 'AudioAccessory5,1', 'HomePod software'],
    ['RealityDevice14,1', 'RealityDevice14,1', 'visionOS'],
  ])('%s → %s on %s', (input, id, os) => {
    expect(identifyModel(input)).toMatchObject({ id, os })
  })

  it.each(['Pixel8,1', 'iPhone15', 'iPhone,2', 'iPhone15,2,1', '15,2', 'iPhone 15,2', 'MacPro7,1-Rack'])('refuses %j', (input) => {
    expect(identifyModel(input)).toBeNull()
  })
})

describe('highest version from the recorded feeds (2026-08-22)', () => {
  it('iPhone15,2: 26.6.1 although 18.7.8 is also offered; one entry per version despite two builds', () => {
    const r = latestFor(['iPhone15,2'], gdmf)
    expect(r?.latest).toMatchObject({ version: '26.6.1', build: '23G83', posted: '2026-08-17T00:00:00Z' })
    expect(versionsOf(r)).toEqual(['26.6.1', '18.7.8'])
  })

  it("iPhone11,2: 18.7.10, beating 18.7.8 numerically (the device-specific release SOFA's per-major Latest misses)", () => {
    expect(latestFor(['iPhone11,2'], gdmf)?.latest.version).toBe('18.7.10')
  })

  it("watchOS and tvOS entries live under gdmf's iOS key and are found by identifier", () => {
    expect(latestFor(['Watch3,1'], gdmf)?.latest.version).toBe('8.8.2')
    expect(latestFor(['AppleTV5,3'], gdmf)?.latest).toMatchObject({ version: '26.6', build: '23L773' })
  })

  it('an unknown model has no release', () => {
    expect(latestFor(['iPhone99,9'], gdmf)).toBeNull()
  })

  it('Mac14,2 through its board ID J413AP', () => {
    const catalog = macCatalog(macFeed)
    expect(catalog.boards['Mac14,2']).toEqual(['J413AP'])
    const { ids, releases } = macReleasesFor('Mac14,2', catalog, [...gdmf, ...sofaReleases(macFeed)])
    const r = latestFor(ids, releases)
    expect(r?.latest).toMatchObject({ version: '26.6.2', build: '25G83' })
    expect(versionsOf(r)).toEqual(['26.6.2', '15.7.9', '14.8.9', '13.7.8', '12.7.6'])
  })

  it('an Intel Mac through its Mac-… board ID stops at its last supported major', () => {
    const catalog = macCatalog(macFeed)
    expect(catalog.boards['iMac19,1']).toEqual(['Mac-63001698E7A34814'])
    const { ids, releases } = macReleasesFor('iMac19,1', catalog, gdmf)
    expect(latestFor(ids, releases)?.latest.version).toBe('15.7.9')
  })

  it("a Mac without a board ID in SOFA falls back to SOFA's supported majors", () => {
    const catalog = macCatalog(macFeed)
    expect(catalog.boards['MacBookPro16,1']).toBeUndefined()
    const { ids, releases } = macReleasesFor('MacBookPro16,1', catalog, gdmf)
    expect(latestFor(ids, releases)?.latest.version).toBe('26.6.2')
  })

  it("watchOS and tvOS from SOFA's feeds alone", () => {
    expect(latestFor(['Watch7,1'], sofaReleases(watchFeed))?.latest).toMatchObject({ version: '26.6', build: '23U67', posted: '2026-07-27T00:00:00Z' })
    expect(latestFor(['AppleTV6,2'], sofaReleases(tvFeed))?.latest).toMatchObject({ version: '26.6', build: '23L773' })
  })

  it('reads both Apple platform keys of 2024 (visionOS and the legacy xrOS)', () => {
    expect(latestFor(['RealityDevice14,1'], gdmf2024)).not.toBeNull()
  })
})

describe('version comparison traps', () => {
  const rel = (version: string, posted = '2026-01-01T00:00:00Z', build = 'X1'): Release => ({ version, build, posted, devices: ['D1,1'] })

  it('compares numerically, never as strings', () => {
    expect(latestFor(['D1,1'], [rel('9.6.4'), rel('26.6'), rel('10.6.2')])?.latest.version).toBe('26.6')
    expect(latestFor(['D1,1'], [rel('18.7.8'), rel('18.7.10'), rel('18.7.9')])?.latest.version).toBe('18.7.10')
    expect(latestFor(['D1,1'], [rel('26.9'), rel('26.10')])?.latest.version).toBe('26.10')
  })

  it('treats 26.6 and 26.6.0 as one version and keeps the earliest posting', () => {
    const r = latestFor(['D1,1'], [rel('26.6.0', '2026-08-03T00:00:00Z', '23L6773'), rel('26.6', '2026-07-27T00:00:00Z', '23L773')])
    expect(r?.perMajor).toHaveLength(1)
    expect(r?.latest.build).toBe('23L773')
  })

  it('updateRequired', () => {
    expect(isUpdateRequired('18.7.10', '18.7.8')).toBe(true)
    expect(isUpdateRequired('18.7.10', '18.7.10')).toBe(false)
    expect(isUpdateRequired('26.6', '26.6.0')).toBe(false)
    expect(isUpdateRequired('26.10', '26.9')).toBe(true)
    expect(isUpdateRequired('26.6.1', '27.0')).toBe(false)
    expect(isUpdateRequired('26.3.1', '26.3.1 (a)')).toBe(false)
    expect(isUpdateRequired('26.3.2', '26.3.1 (a)')).toBe(true)
  })

  it('normalises both feed date formats', () => {
    expect(toIsoDateTime('2026-07-27')).toBe('2026-07-27T00:00:00Z')
    expect(toIsoDateTime('2026-08-17T00:00:00Z')).toBe('2026-08-17T00:00:00Z')
  })
})

import { describe, expect, it } from 'vitest'
import { Did, HeatmapYear } from '@/lib/pds/schemas'
import { isTid, recordKey, tidFromTimeMs, tidTimeMs } from '@/lib/pds/tid'

describe('DID validation', () => {
  it.each([
    'did:plc:ewvi7nxzyoun6zhxrhs64oiz',
    'did:plc:wqgdnqlv2mwiio6pfchwtrff',
    'did:web:discover.bsky.social',
    'did:web:localhost%3A2583',
    'did:web:example.com',
  ])('accepts %s', (did) => {
    expect(Did.safeParse(did).success).toBe(true)
  })

  it.each([
    'alice.bsky.social',
    'did:plc:ewvi7nxzyoun6zhxrhs64oi', // 23 characters
    'did:plc:ewvi7nxzyoun6zhxrhs64oizz', // 25 characters
    'did:plc:EWVI7NXZYOUN6ZHXRHS64OIZ', // upper case
    'did:plc:ewvi7nxzyoun6zhxrhs64oi1', // 1 is not base32
    'did:web:example.com:user:alice', // path-based did:web is not supported by atproto
    'did:web:',
    'did:key:zQ3shXjHeiBuRCKmM36cuYnm7YEMzhGnCmCyW92sRJ9pribSF',
    'did:plc:ewvi7nxzyoun6zhxrhs64oiz/../x',
    '',
  ])('rejects %j with a message naming both forms', (did) => {
    const result = Did.safeParse(did)
    expect(result.success).toBe(false)
    expect(result.error?.issues[0].message).toMatch(/did:plc:.*did:web:/)
  })
})

describe('heatmap year', () => {
  const now = new Date().getUTCFullYear()
  it.each([2020, 2024, now])('accepts %i', (y) => expect(HeatmapYear.safeParse(y).success).toBe(true))
  it.each([2019, now + 1, 2024.5, Number.NaN])('rejects %d', (y) => expect(HeatmapYear.safeParse(y).success).toBe(false))
})

describe('TIDs', () => {
  it('decodes the epoch and round-trips times', () => {
    expect(tidTimeMs('2222222222222')).toBe(0)
    for (const ms of [0, Date.UTC(2020, 0, 1), Date.UTC(2026, 5, 30, 12, 34, 56, 789)]) expect(tidTimeMs(tidFromTimeMs(ms, 17))).toBe(ms)
  })

  it('sorts lexically in time order', () => {
    const times = [Date.UTC(2021, 0, 1), Date.UTC(2021, 0, 1, 0, 0, 0, 1), Date.UTC(2025, 6, 1)]
    const tids = times.map((t) => tidFromTimeMs(t))
    expect([...tids].sort()).toEqual(tids)
  })

  it.each(['3jzfcijpj2z2a', '7777777777777', '3zzzzzzzzzzzz'])('accepts the example %s of https://atproto.com/specs/tid', (tid) => {
    expect(isTid(tid)).toBe(true)
    expect(tidTimeMs(tid)).not.toBeNull()
  })

  it.each(['3jzfcijpj2z21', '0000000000000', '3jzfcijpj2z2', '3JZFCIJPJ2Z2A', 'kzzzzzzzzzzzz', 'self'])('rejects %s', (value) => {
    expect(isTid(value)).toBe(false)
    expect(tidTimeMs(value)).toBeNull()
  })

  it('takes the record key from an at:// URI', () => {
    expect(recordKey('at://did:plc:ewvi7nxzyoun6zhxrhs64oiz/app.bsky.feed.post/3jzfcijpj2z2a')).toBe('3jzfcijpj2z2a')
  })
})

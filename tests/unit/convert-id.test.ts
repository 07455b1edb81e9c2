import { describe, expect, it } from 'vitest'
import { convertId, convertIds, objectIdToSid, sidToObjectId } from '@/lib/directory/convert-id'

// Entra object IDs and their SIDs: S-1-12-1- and the GUID's bytes in Windows order (the first three
// fields little-endian) read as four little-endian 32-bit numbers.
const VECTORS = [
  ['e06e3596-82c0-4f31-ac5a-439a308e3dc2', 'S-1-12-1-3765319062-1328644800-2588105388-3258814000'],
  ['f82d79af-1278-4894-ac01-d90e30875cf8', 'S-1-12-1-4163729839-1217663608-249102764-4166813488'],
] as const

describe('object ID ↔ SID', () => {
  it.each(VECTORS)('%s ↔ %s', (guid, sid) => {
    expect(objectIdToSid(guid)).toBe(sid)
    expect(sidToObjectId(sid)).toBe(guid)
  })

  it('accepts upper case and braces, and says which way it converted', () => {
    expect(convertId('{E06E3596-82C0-4F31-AC5A-439A308E3DC2}')).toMatchObject({ returnId: VECTORS[0][1], convertDirection: 'objectIdToSid' })
    expect(convertId(VECTORS[1][1].toLowerCase())).toMatchObject({ returnId: VECTORS[1][0], convertDirection: 'sidToObjectId' })
  })

  it('round-trips the extremes', () => {
    for (const guid of ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) expect(sidToObjectId(objectIdToSid(guid))).toBe(guid)
  })

  it.each([
    ['not-a-guid', /not a GUID/],
    ['e06e3596-82c0-4f31-ac5a-439a308e3dc', /not a GUID/],
    ['{e06e3596-82c0-4f31-ac5a-439a308e3dc2', /not a GUID/],
    ['S-1-5-21-1-2-3-4', /not an Entra object SID/],
    ['S-1-12-1-1-2-3', /exactly four numbers/],
    ['S-1-12-1-1-2-3-4-5', /exactly four numbers/],
    ['S-1-12-1-4294967296-0-0-0', /above 4294967295/],
  ])('rejects %s', (id, message) => {
    expect(() => convertId(id)).toThrow(message)
  })

  it('converts a batch item by item', () => {
    const results = convertIds([VECTORS[0][0], 'bad', VECTORS[1][1]])
    expect(results.map((r) => r.returnId)).toEqual([VECTORS[0][1], null, VECTORS[1][0]])
    expect(results[1].error).toMatch(/not a GUID/)
  })
})

// Record keys of posts are TIDs: 13 base32-sortable characters encoding a 53-bit microsecond
// timestamp and a 10-bit clock id (https://atproto.com/specs/tid). They give a second, server-side
// timestamp beside the client-asserted createdAt, and they sort in time order.

const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz'
const TID = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/

export const isTid = (value: string) => TID.test(value)

/** Milliseconds since the epoch encoded in a TID, or null when `value` is not a TID. */
export function tidTimeMs(value: string): number | null {
  if (!isTid(value)) return null
  let n = 0n
  for (const c of value) n = n * 32n + BigInt(ALPHABET.indexOf(c))
  return Number((n >> 10n) / 1000n)
}

/** A TID for the given time (clock id 0); used to build test and benchmark data. */
export function tidFromTimeMs(ms: number, clockId = 0): string {
  let n = ((BigInt(Math.floor(ms)) * 1000n) << 10n) | BigInt(clockId & 0x3ff)
  let out = ''
  for (let i = 0; i < 13; i++) {
    out = ALPHABET[Number(n & 31n)] + out
    n >>= 5n
  }
  return out
}

/** The record key (last path segment) of an `at://did/collection/rkey` URI. */
export const recordKey = (uri: string) => uri.slice(uri.lastIndexOf('/') + 1)

import { AppError } from '@/lib/errors'

// An Entra object ID's SID is S-1-12-1-a-b-c-d, where a..d are the GUID's 16 bytes in .NET
// ToByteArray() order (Data1..Data3 little-endian, the rest as written) read as four
// little-endian uint32s.

const GUID = /^\{?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\}?$/i
const SID = /^S-1-12-1-(\d{1,10})-(\d{1,10})-(\d{1,10})-(\d{1,10})$/i
const UINT32_MAX = 0xffff_ffff

function guidBytes(guid: string): Uint8Array | null {
  const m = GUID.exec(guid.trim())
  if (!m || guid.trim().startsWith('{') !== guid.trim().endsWith('}')) return null
  const hex = m.slice(1).join('')
  const bytes = Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)))
  // .NET byte order: reverse Data1 (4 bytes), Data2 (2) and Data3 (2).
  return Uint8Array.from([...bytes.slice(0, 4).reverse(), ...bytes.slice(4, 6).reverse(), ...bytes.slice(6, 8).reverse(), ...bytes.slice(8)])
}

export function objectIdToSid(objectId: string): string {
  const bytes = guidBytes(objectId)
  if (!bytes) throw new AppError('invalid_input', `"${objectId}" is not a GUID (expected xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)`)
  const view = new DataView(bytes.buffer)
  const parts = [0, 4, 8, 12].map((offset) => view.getUint32(offset, true))
  return `S-1-12-1-${parts.join('-')}`
}

export function sidToObjectId(sid: string): string {
  const m = SID.exec(sid.trim())
  if (!m) throw new AppError('invalid_input', `"${sid}" is not an Entra object SID (expected S-1-12-1- followed by exactly four numbers)`)
  const parts = m.slice(1).map(Number)
  if (parts.some((n) => n > UINT32_MAX)) throw new AppError('invalid_input', `"${sid}" has a sub-authority above 4294967295`)
  const bytes = new Uint8Array(16)
  const view = new DataView(bytes.buffer)
  parts.forEach((n, i) => view.setUint32(i * 4, n, true))
  const hex = (from: number, to: number, reverse = false) => {
    const slice = [...bytes.slice(from, to)]
    return (reverse ? slice.reverse() : slice).map((b) => b.toString(16).padStart(2, '0')).join('')
  }
  return `${hex(0, 4, true)}-${hex(4, 6, true)}-${hex(6, 8, true)}-${hex(8, 10)}-${hex(10, 16)}`
}

export function convertId(id: string): { originalId: string; returnId: string; convertDirection: 'objectIdToSid' | 'sidToObjectId' } {
  const trimmed = id.trim()
  if (/^s-/i.test(trimmed)) return { originalId: id, returnId: sidToObjectId(trimmed), convertDirection: 'sidToObjectId' }
  return { originalId: id, returnId: objectIdToSid(trimmed), convertDirection: 'objectIdToSid' }
}

export function convertIds(ids: string[]) {
  return ids.map((id) => {
    try {
      return { ...convertId(id), error: null }
    } catch (error) {
      return { originalId: id, returnId: null, convertDirection: null, error: error instanceof Error ? error.message : String(error) }
    }
  })
}

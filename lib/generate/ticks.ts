import type { z } from 'zod'
import { AppError } from '@/lib/errors'
import type { TicksQuery, TicksResult } from '@/lib/generate/schemas'

// .NET DateTime ticks: 100-ns intervals since 0001-01-01T00:00:00Z. Beyond 2^53, hence BigInt.
export const UNIX_EPOCH_TICKS = 621_355_968_000_000_000n
export const MAX_TICKS = 3_155_378_975_999_999_999n // DateTime.MaxValue
const TICKS_PER_MS = 10_000n

export function ticksFromUnixMs(ms: number): bigint {
  return BigInt(ms) * TICKS_PER_MS + UNIX_EPOCH_TICKS
}

/** Ticks → Unix ms, truncating sub-millisecond ticks toward the past. */
export function unixMsFromTicks(ticks: bigint): number {
  const offset = ticks - UNIX_EPOCH_TICKS
  let ms = offset / TICKS_PER_MS
  if (offset < 0n && offset % TICKS_PER_MS !== 0n) ms -= 1n
  return Number(ms)
}

export function convertTicks(query: z.output<typeof TicksQuery>, now = () => Date.now()): TicksResult {
  if (query.ticks !== undefined) {
    const ticks = BigInt(query.ticks)
    if (ticks > MAX_TICKS) throw new AppError('invalid_input', `ticks: must be at most ${MAX_TICKS} (DateTime.MaxValue)`)
    const ms = unixMsFromTicks(ticks)
    return { dateTime: new Date(ms).toISOString(), ticks: ticks.toString(), unixMilliseconds: ms }
  }
  const ms = query.dateTime !== undefined ? Date.parse(query.dateTime) : now()
  if (!Number.isFinite(ms)) throw new AppError('invalid_input', 'dateTime: not a valid ISO 8601 date-time')
  const ticks = ticksFromUnixMs(ms)
  if (ticks < 0n || ticks > MAX_TICKS) throw new AppError('invalid_input', 'dateTime: outside the .NET DateTime range (years 1–9999)')
  return { dateTime: new Date(ms).toISOString(), ticks: ticks.toString(), unixMilliseconds: ms }
}

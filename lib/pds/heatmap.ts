import type { Heatmap } from '@/lib/pds/schemas'
import { recordKey, tidTimeMs } from '@/lib/pds/tid'

// Posting heatmap aggregation. A post is dated by its createdAt (what readers see). createdAt is
// client-asserted, so a post dated after `now` is left out rather than counted on a future day.

export interface PostRecord {
  uri: string
  value: unknown
}

const DAY_MS = 86_400_000

function createdAtMs(value: unknown): number | null {
  if (typeof value !== 'object' || value === null) return null
  const raw = (value as { createdAt?: unknown }).createdAt
  if (typeof raw !== 'string') return null
  const ms = Date.parse(raw)
  return Number.isNaN(ms) ? null : ms
}

/** The UTC day a post counts on, or null when it is dated in the future or carries no usable date. */
export function postDay(record: PostRecord, now: number): string | null {
  // An unparsable createdAt falls back to the record key's own timestamp.
  const ms = createdAtMs(record.value) ?? tidTimeMs(recordKey(record.uri))
  if (ms === null || ms > now) return null
  return new Date(ms).toISOString().slice(0, 10)
}

/** Adds the posts of `records` that fall in `year` to `counts`. */
export function countPosts(counts: Map<string, number>, records: readonly PostRecord[], year: number, now: number) {
  const prefix = `${year}-`
  for (const record of records) {
    const day = postDay(record, now)
    if (day?.startsWith(prefix)) counts.set(day, (counts.get(day) ?? 0) + 1)
  }
}

/**
 * listRecords pages run newest record key first. Once a page ends with a key written before the
 * year began (a day's margin for clock skew), later pages hold only older writes: a post written
 * before the year cannot belong to it unless it was future-dated when written, which we exclude.
 */
export function reachedBeforeYear(records: readonly PostRecord[], year: number): boolean {
  const last = records.at(-1)
  if (!last) return false
  const written = tidTimeMs(recordKey(last.uri))
  return written !== null && written < Date.UTC(year, 0, 1) - DAY_MS
}

export function toHeatmap(counts: Map<string, number>): Heatmap {
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1)))
}

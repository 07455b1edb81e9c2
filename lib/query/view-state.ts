import { DATASET_IDS, type DatasetId } from '@/lib/query/datasets'

// The query pages keep their whole state in the URL (shareable, back button works), datasette
// style: ?dataset=dns&range=24h&filter=…&limit=100&offset=200 (and &cursor=… on a page reached by
// "Next", which reads rows after the previous page's last one). Ranges are presets relative to now
// (resolved per request, to the minute) or custom from/to in UTC. Values are passed on as typed;
// the query functions validate them and the page shows their message.

export const RANGE_PRESETS = {
  '1h': 'Last hour',
  today: 'Today',
  '24h': 'Last 24 hours',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  custom: 'Custom',
} as const
export type RangeId = keyof typeof RANGE_PRESETS

export const PAGE_SIZES = [25, 50, 100, 250, 500] as const
const DEFAULT_LIMIT = 100

export interface ViewState {
  dataset: DatasetId
  range: RangeId
  /** Custom range bounds as typed (ISO 8601 date or date-time, UTC unless an offset is given). */
  from: string
  to: string
  filter: string
  limit: number
  offset: number
  /** Keyset position of the page (the previous page's nextCursor); offset then only numbers the rows. */
  cursor: string
}

export type SearchParams = Record<string, string | string[] | undefined>

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? ''

/** State from the page's search params; `unknownDataset` names a dataset id that does not exist. */
export function parseViewState(sp: SearchParams): { state: ViewState; unknownDataset: string | null } {
  const datasetParam = one(sp.dataset)
  const known = (DATASET_IDS as readonly string[]).includes(datasetParam)
  const range = one(sp.range)
  const number = (v: string, fallback: number) => (v.trim() === '' ? fallback : Number(v))
  return {
    state: {
      dataset: known ? (datasetParam as DatasetId) : 'requests',
      range: range in RANGE_PRESETS ? (range as RangeId) : one(sp.from) || one(sp.to) ? 'custom' : '24h',
      from: one(sp.from),
      to: one(sp.to),
      filter: one(sp.filter),
      limit: number(one(sp.limit), DEFAULT_LIMIT),
      offset: number(one(sp.offset), 0),
      cursor: one(sp.cursor),
    },
    unknownDataset: datasetParam && !known ? datasetParam : null,
  }
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const RELATIVE: Partial<Record<RangeId, number>> = { '1h': HOUR, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY }

/** dateFrom/dateTo for the query functions. Relative presets end after the current minute. */
export function resolveViewRange(state: Pick<ViewState, 'range' | 'from' | 'to'>, now = new Date()): { dateFrom: string; dateTo: string } {
  const span = RELATIVE[state.range]
  if (span) {
    const to = Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE
    return { dateFrom: new Date(to - span).toISOString(), dateTo: new Date(to).toISOString() }
  }
  if (state.range === 'today' || state.range === 'yesterday') {
    // A bare date as dateTo covers that whole UTC day.
    const day = new Date(now.getTime() - (state.range === 'yesterday' ? DAY : 0)).toISOString().slice(0, 10)
    return { dateFrom: day, dateTo: day }
  }
  return { dateFrom: state.from, dateTo: state.to }
}

/** What the query functions take for a state: its dataset, resolved range and filter (no paging). */
export function rangeRequest(state: ViewState, now = new Date()) {
  return { dataset: state.dataset, ...resolveViewRange(state, now), filter: state.filter || undefined }
}

/** `2026-11-21T13:05:00.000Z` → `2026-11-21T13:05`, the value of a datetime-local input (UTC). */
export function toInputValue(iso: string, endOfDay = false): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return `${iso}T${endOfDay ? '23:59' : '00:00'}`
  return iso.slice(0, 16)
}

/**
 * The URL of a state: only what differs from the defaults, so links stay short. A cursor belongs to
 * one page of one query: any change drops it unless the change sets it.
 */
export function viewHref(path: string, state: ViewState, changes: Partial<ViewState> = {}): string {
  const s = { ...state, cursor: Object.keys(changes).length ? '' : state.cursor, ...changes }
  const q = new URLSearchParams({ dataset: s.dataset, range: s.range })
  if (s.range === 'custom') {
    q.set('from', s.from)
    q.set('to', s.to)
  }
  if (s.filter) q.set('filter', s.filter)
  if (s.limit !== DEFAULT_LIMIT) q.set('limit', String(s.limit))
  if (s.offset !== 0) q.set('offset', String(s.offset))
  if (s.cursor) q.set('cursor', s.cursor)
  return `${path}?${q}`
}

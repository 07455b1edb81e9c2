import { z } from 'zod'
import { DATASETS, DATASET_IDS, type DatasetId } from '@/lib/datasets/catalog'
import { formatTime, isTimeZone, parseTypedTime, startOfDay, UTC } from '@/lib/view/time'
import { parseCompareParams, type CompareMode } from '@/lib/view/compare'
import { addClause, searchClause } from '@/lib/view/drilldown'

// The query pages keep their whole state in the URL (shareable, back button works), datasette
// style: ?dataset=dns&range=24h&filter=…&limit=100&offset=200&cols=a,b&tz=Europe/Berlin (and
// &cursor=… on a page reached by "Next", which reads rows after the previous page's last one;
// &sort=-duration_ms sorts by an indexed column, `-` for descending, newest first when absent;
// &live=1 tails the rows as they are written; &around=<row key> shows the rows around one row; &q=text searches the text columns, as a clause
// added to the filter). Ranges are
// presets relative to now (resolved per request, to the minute) or custom from/to, read in the
// page's time zone unless they carry an offset. A parameter that cannot be used is replaced by its
// default and named in a notice, so a mistyped link still opens a working page. The filter is
// passed on as typed: the query functions check it and the page shows their message.
// Pure (no server imports): the browser's range fields and links use it too.

export const RANGE_PRESETS = {
  '5m': 'Last 5 minutes',
  '15m': 'Last 15 minutes',
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
export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 500
const DEFAULT_RANGE: RangeId = '24h'

export interface ViewState {
  dataset: DatasetId
  range: RangeId
  /** Custom range bounds as typed (a date, or a date and time; in `tz` unless an offset is given). */
  from: string
  to: string
  filter: string
  limit: number
  offset: number
  /** Keyset position of the page (the previous page's nextCursor); offset then only numbers the rows. */
  cursor: string
  /** IANA time zone the page shows times in (and reads typed bounds in); `UTC` by default. */
  tz: string
  /** Columns shown, in the dataset's order; empty means all of them. */
  columns: string[]
  /** Column the rows are sorted by (one of the dataset's sortColumns); empty means its time column. */
  sort: string
  /** Sort direction: true for descending (the default, newest first). */
  desc: boolean
  /** The window charts are compared with (`compare=previous|day|week`); none when absent. */
  compare?: CompareMode
  /** Column the time charts are stacked by (`split=status_class`); none when absent. */
  split?: string
  /** Live tail (`live=1`): the rows page shows rows as they are written instead of a range. */
  live?: boolean
  /** Dashboard auto-refresh (`refresh=30s|1m|5m`): the page reloads its panels at that interval while visible. */
  refresh?: RefreshId
  /** Rows in context (`around=<row key>`): the rows page shows the rows just newer and older than that row; the range does not apply. */
  around?: string
}

/** A row's key as the query API gives it (`keys`, `nextCursor`): its time to the microsecond and its id. */
const ROW_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z~\d{1,19}$/

/** Auto-refresh intervals of the dashboard, in seconds. */
export const REFRESH_INTERVALS = { '30s': 30, '1m': 60, '5m': 300 } as const
export type RefreshId = keyof typeof REFRESH_INTERVALS

export type SearchParams = Record<string, string | string[] | undefined>

export interface ParseOptions {
  /** QUERY_MAX_RANGE_DAYS: a longer custom range falls back to the default with a notice. */
  maxRangeDays?: number
  now?: Date
}

const one = (v: string | string[] | undefined) => ((Array.isArray(v) ? v[0] : v) ?? '').trim()
const DAY_MS = 86_400_000

/** The state of a page URL, and a sentence for each parameter that had to fall back to its default. */
export function parseViewState(sp: SearchParams, opts: ParseOptions = {}): { state: ViewState; notices: string[] } {
  const notices: string[] = []
  const datasetParam = one(sp.dataset)
  let dataset: DatasetId = 'requests'
  if ((DATASET_IDS as readonly string[]).includes(datasetParam)) dataset = datasetParam as DatasetId
  else if (datasetParam) notices.push(`There is no dataset “${datasetParam}”; showing ${DATASETS.requests.label}.`)

  let tz = one(sp.tz) || UTC
  if (!isTimeZone(tz)) {
    notices.push(`“${tz}” is not a time zone; showing times in UTC.`)
    tz = UTC
  }

  let [from, to] = [one(sp.from), one(sp.to)]
  const rangeParam = one(sp.range)
  let range: RangeId = DEFAULT_RANGE
  // `range=now-2h`: a preset when it is one (now-1h is 1h), else a custom range from it to now.
  const relative = rangeParam in RANGE_PRESETS ? null : relativeRange(rangeParam)
  if (relative) [range, from, to] = [relative.range, relative.from, relative.to]
  else if (rangeParam in RANGE_PRESETS) range = rangeParam as RangeId
  else if (rangeParam) notices.push(`“${rangeParam}” is not a range; showing the last 24 hours.`)
  else if (from || to) range = 'custom'
  if (range === 'custom') {
    const problem = customRangeProblem(from, to, tz, opts)
    if (problem) {
      notices.push(`${problem}; showing the last 24 hours.`)
      range = DEFAULT_RANGE
    }
  }

  const limit = integerParam(one(sp.limit), DEFAULT_LIMIT, 1, MAX_LIMIT, (v, outOfRange) =>
    outOfRange
      ? `“${v}” rows per page is outside 1 to ${MAX_LIMIT}; showing ${DEFAULT_LIMIT}.`
      : `“${v}” is not a number of rows per page; showing ${DEFAULT_LIMIT}.`,
  )
  const offset = integerParam(one(sp.offset), 0, 0, Number.MAX_SAFE_INTEGER, (v) => `“${v}” is not a row offset; starting at the first row.`)

  const known = new Set(DATASETS[dataset].columns.map((c) => c.name))
  const asked = one(sp.cols)
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
  const unknown = asked.filter((c) => !known.has(c))
  if (unknown.length)
    notices.push(
      `${unknown.map((c) => `“${c}”`).join(', ')} ${unknown.length > 1 ? 'are not columns' : 'is not a column'} of ${DATASETS[dataset].label}; left out.`,
    )
  const shown = new Set(asked.filter((c) => known.has(c)))
  const columns = shown.size === known.size ? [] : DATASETS[dataset].columns.map((c) => c.name).filter((c) => shown.has(c))

  const compare = parseCompareParams(dataset, one(sp.compare), one(sp.split))
  const sortParam = one(sp.sort)
  const sortColumn = sortParam.replace(/^-/, '')
  const sortable = DATASETS[dataset].sortColumns
  let sort = ''
  let desc = true
  if (sortColumn && sortable.includes(sortColumn)) {
    sort = sortColumn === DATASETS[dataset].timeColumn ? '' : sortColumn
    desc = sortParam.startsWith('-')
  } else if (sortParam) notices.push(`Rows cannot be sorted by “${sortColumn}” (sortable: ${sortable.join(', ')}); showing the newest first.`)

  const refreshParam = one(sp.refresh)
  const refresh = refreshParam in REFRESH_INTERVALS ? (refreshParam as RefreshId) : undefined
  if (refreshParam && !refresh) notices.push(`“${refreshParam}” is not a refresh interval (30s, 1m, 5m); not refreshing.`)

  let around = one(sp.around)
  if (around && !ROW_KEY.test(around)) {
    notices.push(`“${around}” is not a row of this dataset; showing the range instead of rows around it.`)
    around = ''
  }

  // `q`: free text, applied as a visible clause of the filter (so links, saved views and the SQL carry it).
  let filter = one(sp.filter)
  const searched = one(sp.q)
  if (searched) {
    const clause = searchClause(DATASETS[dataset].columns, searched)
    if (clause) filter = addClause(filter, clause)
    else notices.push(`${DATASETS[dataset].label} has no text column to search; “${searched}” was not searched for.`)
  }

  return {
    state: {
      dataset,
      range,
      from: range === 'custom' ? from : '',
      to: range === 'custom' ? to : '',
      filter,
      limit: limit.value,
      offset: offset.value,
      cursor: one(sp.cursor),
      tz,
      columns,
      sort,
      desc,
      ...compare.state,
      ...(one(sp.live) === '1' ? { live: true } : {}),
      ...(around ? { around } : {}),
      ...(refresh ? { refresh } : {}),
    },
    notices: [...notices, ...limit.notices, ...offset.notices, ...compare.notices],
  }

  function integerParam(text: string, fallback: number, min: number, max: number, sentence: (v: string, outOfRange: boolean) => string) {
    if (text === '') return { value: fallback, notices: [] }
    const n = /^\d+$/.test(text) ? Number(text) : NaN
    if (Number.isSafeInteger(n) && n >= min && n <= max) return { value: n, notices: [] }
    return { value: fallback, notices: [sentence(text, Number.isSafeInteger(n))] }
  }
}

function customRangeProblem(from: string, to: string, tz: string, opts: ParseOptions): string | null {
  if (!from || !to) return 'A custom range needs both From and To'
  for (const [name, text] of [
    ['start', from],
    ['end', to],
  ] as const)
    if (!parseTypedTime(text, tz) && parseRelativeTime(text, opts.now ?? new Date()) === null)
      return `The range ${name} “${text}” is not a date or time such as 2026-11-21 13:00 or now-15m`
  const { dateFrom, dateTo } = resolveViewRange({ range: 'custom', from, to, tz }, opts.now)
  const [start, end] = [Date.parse(dateFrom), Date.parse(dateTo)]
  if (end < start) return `The range ends (${formatTime(end, tz)}) before it starts (${formatTime(start, tz)})`
  if (opts.maxRangeDays && end - start > opts.maxRangeDays * DAY_MS) return `The range is longer than ${opts.maxRangeDays} days (QUERY_MAX_RANGE_DAYS)`
  return null
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const RELATIVE: Partial<Record<RangeId, number>> = { '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': HOUR, '24h': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS }
const UNITS = { d: DAY_MS, h: HOUR, m: MINUTE } as const

/**
 * A bound relative to now, as typed in the URL (`range=now-15m`, `from=now-2h&to=now`) or the From
 * and To fields: `now`, or `now-` a whole number of minutes, hours or days.
 */
export const RelativeTime = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^now(-[1-9]\d{0,5}[mhd])?$/)
  .transform((text) => {
    const m = /^now(?:-(\d+)([mhd]))?$/.exec(text)!
    return m[1] ? Number(m[1]) * UNITS[m[2] as keyof typeof UNITS] : 0
  })

/** End of a range ending now: after the current minute, as the relative presets end. */
const nowEnd = (now: Date) => Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE

/** The instant a relative bound stands for (ms), or null when the text is not one. */
export function parseRelativeTime(text: string, now: Date): number | null {
  const back = RelativeTime.safeParse(text)
  return back.success ? nowEnd(now) - back.data : null
}

/** `range=now-…` as a preset (now-1h is 1h) or a custom range from it to now; null when it is not one (or is `now` alone). */
export function relativeRange(text: string): { range: RangeId; from: string; to: string } | null {
  const back = RelativeTime.safeParse(text)
  if (!back.success || back.data === 0) return null
  const preset = (Object.keys(RELATIVE) as RangeId[]).find((id) => RELATIVE[id] === back.data)
  return preset ? { range: preset, from: '', to: '' } : { range: 'custom', from: text.trim().toLowerCase(), to: 'now' }
}

/** A span as the shortest relative bound that says it exactly (`now-90m`, `now-2h`, `now-14d`). */
function relativeText(span: number): string {
  const [unit, ms] = Object.entries(UNITS).find(([, ms]) => span % ms === 0) ?? ['m', MINUTE]
  return `now-${Math.max(1, Math.round(span / ms))}${unit}`
}

/**
 * The range twice as long: one that ends now reaches back twice as far (still ending now); a fixed
 * window grows by half its length on each side, around its centre.
 */
export function zoomOut(state: Pick<ViewState, 'range' | 'from' | 'to' | 'tz'>, now = new Date()): Pick<ViewState, 'range' | 'from' | 'to'> {
  const { dateFrom, dateTo } = resolveViewRange(state, now)
  const [start, end] = [Date.parse(dateFrom), Date.parse(dateTo)]
  const span = Math.max(MINUTE, end - start)
  const endsNow = RELATIVE[state.range] !== undefined || (state.range === 'custom' && RelativeTime.safeParse(state.to).data === 0)
  if (endsNow) return relativeRange(relativeText(2 * span))!
  const iso = (ms: number) => new Date(ms).toISOString()
  return { range: 'custom', from: iso(start - span / 2), to: iso(end + span / 2) }
}

/**
 * dateFrom/dateTo (ISO 8601 instants) for the query functions: [dateFrom, dateTo). Relative
 * presets end after the current minute; today and yesterday are days of the page's time zone; a
 * custom end given as a bare date includes that whole day.
 */
export function resolveViewRange(state: Pick<ViewState, 'range' | 'from' | 'to' | 'tz'>, now = new Date()): { dateFrom: string; dateTo: string } {
  const span = RELATIVE[state.range]
  const iso = (ms: number) => new Date(ms).toISOString()
  if (span) {
    const to = Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE
    return { dateFrom: iso(to - span), dateTo: iso(to) }
  }
  if (state.range === 'today' || state.range === 'yesterday') {
    const back = state.range === 'yesterday' ? -1 : 0
    return { dateFrom: iso(startOfDay(now.getTime(), state.tz, back)), dateTo: iso(startOfDay(now.getTime(), state.tz, back + 1)) }
  }
  const bound = (text: string) => {
    const relative = parseRelativeTime(text, now)
    return relative === null ? parseTypedTime(text, state.tz) : { iso: iso(relative), dateOnly: false }
  }
  const from = bound(state.from)
  const to = bound(state.to)
  // Unparseable bounds only reach here from callers that skipped parseViewState; the query
  // functions reject them with their own message.
  if (!from || !to) return { dateFrom: state.from, dateTo: state.to }
  return { dateFrom: from.iso, dateTo: to.dateOnly ? iso(startOfDay(Date.parse(to.iso), state.tz, 1)) : to.iso }
}

/** What the query functions take for a state: its dataset, resolved range and filter (no paging). */
export function rangeRequest(state: ViewState, now = new Date()) {
  return { dataset: state.dataset, ...resolveViewRange(state, now), filter: state.filter || undefined }
}

/**
 * The URL of a state: only what differs from the defaults, so links stay short. A cursor belongs to
 * one page of one query: any change drops it unless the change sets it.
 */
export function viewHref(path: string, state: ViewState, changes: Partial<ViewState> = {}): string {
  // A row key belongs to one dataset: another dataset drops it too.
  const around = changes.dataset && changes.dataset !== state.dataset ? undefined : state.around
  return `${path}?${viewQuery({ ...state, around, cursor: Object.keys(changes).length ? '' : state.cursor, ...changes })}`
}

/** The query string of a state (what a saved view stores). */
export function viewQuery(s: ViewState): string {
  const q = new URLSearchParams({ dataset: s.dataset, range: s.range })
  if (s.range === 'custom') {
    q.set('from', s.from)
    q.set('to', s.to)
  }
  if (s.filter) q.set('filter', s.filter)
  if (s.limit !== DEFAULT_LIMIT) q.set('limit', String(s.limit))
  if (s.offset !== 0) q.set('offset', String(s.offset))
  if (s.cursor) q.set('cursor', s.cursor)
  if (s.columns.length) q.set('cols', s.columns.join(','))
  const sort = sortParam(s)
  if (sort) q.set('sort', sort)
  if (s.tz !== UTC) q.set('tz', s.tz)
  if (s.compare) q.set('compare', s.compare)
  if (s.split) q.set('split', s.split)
  if (s.live) q.set('live', '1')
  if (s.around) q.set('around', s.around)
  if (s.refresh) q.set('refresh', s.refresh)
  return q.toString()
}

/** `-status` (descending) or `status`; empty for the default, newest first. */
export function sortParam(s: Pick<ViewState, 'dataset' | 'sort' | 'desc'>): string {
  if (!s.sort && s.desc) return ''
  return `${s.desc ? '-' : ''}${s.sort || DATASETS[s.dataset].timeColumn}`
}

/** What the query functions take for a state's sort: the column (the time column when empty) and direction. */
export function sortRequest(s: Pick<ViewState, 'dataset' | 'sort' | 'desc'>): { sort: string; order: 'asc' | 'desc' } {
  return { sort: s.sort || DATASETS[s.dataset].timeColumn, order: s.desc ? 'desc' : 'asc' }
}

/** The dataset's columns the state shows, in the dataset's order. */
export function shownColumns(state: Pick<ViewState, 'dataset' | 'columns'>): string[] {
  const all = DATASETS[state.dataset].columns.map((c) => c.name)
  return state.columns.length ? all.filter((c) => state.columns.includes(c)) : all
}

/**
 * The span a drag selected, widened to whole buckets and kept inside the range: the new range then
 * holds exactly the bars under the selection, and stays in whole minutes (the rollups can answer).
 */
export function snapToBuckets(fromMs: number, toMs: number, bucketMs: number, range: { from: number; to: number }): { from: number; to: number } {
  const from = Math.max(range.from, Math.floor(fromMs / bucketMs) * bucketMs)
  const to = Math.min(range.to, Math.max(Math.ceil(toMs / bucketMs) * bucketMs, from + bucketMs))
  return { from, to }
}

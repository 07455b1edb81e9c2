import { describe, expect, it } from 'vitest'
import { pinnedWindow } from '@/lib/view/exact-window'
import {
  parseRelativeTime,
  parseViewState,
  rangeRequest,
  RelativeTime,
  resolveViewRange,
  shownColumns,
  viewHref,
  viewQuery,
  zoomOut,
  type ViewState,
} from '@/lib/view/view-state'

// The query pages' URL state: parsing (with a sentence for each parameter that falls back to its
// default), range presets and the links built from it.

const NOW = new Date('2026-11-21T13:45:30.250Z')
const DEFAULTS = {
  dataset: 'requests',
  range: '24h',
  from: '',
  to: '',
  filter: '',
  limit: 100,
  offset: 0,
  cursor: '',
  tz: 'UTC',
  columns: [],
  sort: '',
  desc: true,
}

describe('parseViewState', () => {
  it('defaults to the request log over the last 24 hours, 100 rows, UTC, every column', () => {
    expect(parseViewState({})).toEqual({ state: DEFAULTS, notices: [] })
  })

  it('reads every field and the first of repeated ones', () => {
    const { state, notices } = parseViewState({
      dataset: 'dns',
      range: '7d',
      filter: ['rcode = 3', 'x'],
      limit: '250',
      offset: '500',
      tz: 'Europe/Berlin',
      cols: 'rcode,datetime',
    })
    expect(notices).toEqual([])
    expect(state).toEqual({
      ...DEFAULTS,
      dataset: 'dns',
      range: '7d',
      filter: 'rcode = 3',
      limit: 250,
      offset: 500,
      tz: 'Europe/Berlin',
      columns: ['datetime', 'rcode'],
    })
  })

  it('reads from/to without a range as custom, and drops them from a preset', () => {
    expect(parseViewState({ from: '2026-11-01', to: '2026-11-02' }).state).toMatchObject({ range: 'custom', from: '2026-11-01', to: '2026-11-02' })
    expect(parseViewState({ range: '7d', from: '2026-11-01', to: '2026-11-02' }).state).toMatchObject({ range: '7d', from: '', to: '' })
  })

  it.each([
    [{ limit: 'abc' }, { limit: 100 }, '“abc” is not a number of rows per page; showing 100.'],
    [{ limit: '1.5' }, { limit: 100 }, '“1.5” is not a number of rows per page; showing 100.'],
    [{ limit: '0' }, { limit: 100 }, '“0” rows per page is outside 1 to 500; showing 100.'],
    [{ limit: '9000' }, { limit: 100 }, '“9000” rows per page is outside 1 to 500; showing 100.'],
    [{ offset: '-4' }, { offset: 0 }, '“-4” is not a row offset; starting at the first row.'],
    [{ offset: '1e3' }, { offset: 0 }, '“1e3” is not a row offset; starting at the first row.'],
    [{ dataset: 'pg_shadow' }, { dataset: 'requests' }, 'There is no dataset “pg_shadow”; showing API requests.'],
    [{ range: 'forever' }, { range: '24h' }, '“forever” is not a range; showing the last 24 hours.'],
    [{ tz: 'Mars/Olympus' }, { tz: 'UTC' }, '“Mars/Olympus” is not a time zone; showing times in UTC.'],
    [{ range: 'custom', from: '2026-11-01' }, { range: '24h', from: '' }, 'A custom range needs both From and To; showing the last 24 hours.'],
    [
      { range: 'custom', from: 'yesterday', to: '2026-11-02' },
      { range: '24h' },
      'The range start “yesterday” is not a date or time such as 2026-11-21 13:00 or now-15m; showing the last 24 hours.',
    ],
    [
      { range: 'custom', from: '2026-02-30', to: '2026-03-02' },
      { range: '24h' },
      'The range start “2026-02-30” is not a date or time such as 2026-11-21 13:00 or now-15m; showing the last 24 hours.',
    ],
    [
      { from: '2026-11-02 10:00', to: '2026-11-01' },
      { range: '24h' },
      'The range ends (2026-11-02 00:00:00 UTC) before it starts (2026-11-02 10:00:00 UTC); showing the last 24 hours.',
    ],
    [{ cols: 'status,secret,nope' }, { columns: ['status'] }, '“secret”, “nope” are not columns of API requests; left out.'],
  ])('%j falls back with a sentence', (params, expected, notice) => {
    const { state, notices } = parseViewState(params)
    expect(state).toMatchObject(expected)
    expect(notices).toEqual([notice])
  })

  it('refuses a custom range longer than QUERY_MAX_RANGE_DAYS', () => {
    const { state, notices } = parseViewState({ from: '2026-01-01', to: '2026-03-01' }, { maxRangeDays: 31 })
    expect(state.range).toBe('24h')
    expect(notices).toEqual(['The range is longer than 31 days (QUERY_MAX_RANGE_DAYS); showing the last 24 hours.'])
  })

  it('shows every column when the list names them all', () => {
    const all = shownColumns({ dataset: 'network', columns: [] })
    expect(all).toHaveLength(19)
    expect(parseViewState({ dataset: 'network', cols: [...all].reverse().join(',') }).state.columns).toEqual([])
    expect(shownColumns({ dataset: 'network', columns: ['sni', 'datetime'] })).toEqual(['datetime', 'sni'])
  })
})

describe('resolveViewRange', () => {
  const utc = { from: '', to: '', tz: 'UTC' }
  it.each([
    ['1h', '2026-11-21T12:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['24h', '2026-11-20T13:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['7d', '2026-11-14T13:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['30d', '2026-10-22T13:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['today', '2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z'],
    ['yesterday', '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'],
  ] as const)('%s → %s … %s', (range, dateFrom, dateTo) => {
    expect(resolveViewRange({ range, ...utc }, NOW)).toEqual({ dateFrom, dateTo })
  })

  it('takes today and yesterday as days of the page’s time zone', () => {
    // 13:45 UTC is 22:45 in Tokyo, on the 21st there too.
    expect(resolveViewRange({ range: 'today', from: '', to: '', tz: 'Asia/Tokyo' }, NOW)).toEqual({
      dateFrom: '2026-11-20T15:00:00.000Z',
      dateTo: '2026-11-21T15:00:00.000Z',
    })
    expect(resolveViewRange({ range: 'yesterday', from: '', to: '', tz: 'America/Los_Angeles' }, NOW)).toEqual({
      dateFrom: '2026-11-20T08:00:00.000Z',
      dateTo: '2026-11-21T08:00:00.000Z',
    })
  })

  it('reads custom bounds in the page’s zone unless they carry an offset; a bare end date includes its day', () => {
    expect(resolveViewRange({ range: 'custom', from: '2026-11-01T08:00', to: '2026-11-02', tz: 'UTC' }, NOW)).toEqual({
      dateFrom: '2026-11-01T08:00:00.000Z',
      dateTo: '2026-11-03T00:00:00.000Z',
    })
    expect(resolveViewRange({ range: 'custom', from: '2026-11-01 08:00:00', to: '2026-11-01 09:30 UTC', tz: 'Europe/Berlin' }, NOW)).toEqual({
      dateFrom: '2026-11-01T07:00:00.000Z',
      dateTo: '2026-11-01T09:30:00.000Z',
    })
    expect(resolveViewRange({ range: 'custom', from: '2026-07-01 08:00:00 UTC+02:00', to: '2026-07-01', tz: 'Europe/Berlin' }, NOW)).toEqual({
      dateFrom: '2026-07-01T06:00:00.000Z',
      dateTo: '2026-07-01T22:00:00.000Z',
    })
  })

  it('gives the query functions the dataset, the resolved range and a filter only when there is one', () => {
    const { state } = parseViewState({ dataset: 'dns', range: 'yesterday' })
    expect(rangeRequest(state, NOW)).toEqual({ dataset: 'dns', dateFrom: '2026-11-20T00:00:00.000Z', dateTo: '2026-11-21T00:00:00.000Z', filter: undefined })
    expect(rangeRequest({ ...state, filter: 'rcode = 3' }, NOW).filter).toBe('rcode = 3')
  })
})

describe('links', () => {
  const { state } = parseViewState({ dataset: 'http', range: '7d', filter: "action = 'block'", offset: '100' })

  it('keeps only what differs from the defaults', () => {
    expect(viewHref('/query', state)).toBe('/query?dataset=http&range=7d&filter=action+%3D+%27block%27&offset=100')
    expect(viewHref('/query', state, { filter: '', offset: 0 })).toBe('/query?dataset=http&range=7d')
    expect(viewHref('/export', state, { range: 'custom', from: '2026-11-01', to: '2026-11-02', limit: 500 })).toBe(
      '/export?dataset=http&range=custom&from=2026-11-01&to=2026-11-02&filter=action+%3D+%27block%27&limit=500&offset=100',
    )
    expect(viewQuery({ ...state, columns: ['datetime', 'url'], tz: 'Europe/Berlin' })).toBe(
      'dataset=http&range=7d&filter=action+%3D+%27block%27&offset=100&cols=datetime%2Curl&tz=Europe%2FBerlin',
    )
  })

  it('keeps a page’s cursor on its own link and drops it on any change that does not set it', () => {
    const page = { ...state, offset: 200, cursor: '2026-11-20T10:00:00.000123Z~42' }
    expect(viewHref('/query', page)).toBe('/query?dataset=http&range=7d&filter=action+%3D+%27block%27&offset=200&cursor=2026-11-20T10%3A00%3A00.000123Z%7E42')
    expect(viewHref('/query', page, { offset: 100 })).toBe('/query?dataset=http&range=7d&filter=action+%3D+%27block%27&offset=100')
    expect(viewHref('/query', page, { offset: 300, cursor: 'next' })).toContain('&offset=300&cursor=next')
    expect(parseViewState({ cursor: 'abc' }).state.cursor).toBe('abc')
  })

  it('round-trips through the parser', () => {
    const href = viewHref('/query', state, { limit: 25, columns: ['url', 'action'], tz: 'America/New_York' })
    expect(parseViewState(Object.fromEntries(new URL(href, 'http://x').searchParams)).state).toEqual({
      ...state,
      limit: 25,
      columns: ['action', 'url'],
      tz: 'America/New_York',
    })
  })

  it('keeps live tail mode (live=1) on its links, the filter links included, and drops it when asked', () => {
    const live = parseViewState({ dataset: 'http', filter: "action = 'block'", live: '1' }).state
    expect(live.live).toBe(true)
    expect(parseViewState({ live: '0' }).state.live).toBeUndefined()
    const href = viewHref('/query', live, { filter: "action = 'allow'" })
    expect(href).toContain('&live=1')
    expect(parseViewState(Object.fromEntries(new URL(href, 'http://x').searchParams)).state).toEqual({ ...live, filter: "action = 'allow'" })
    expect(viewHref('/query', live, { live: false })).not.toContain('live')
  })

  it('keeps auto-refresh (refresh=30s|1m|5m) on its links and names an interval it does not know', () => {
    const refreshing = parseViewState({ dataset: 'requests', range: '1h', refresh: '1m' }).state
    expect(refreshing.refresh).toBe('1m')
    const href = viewHref('/query/dashboard', refreshing, { filter: 'status >= 500' })
    expect(href).toContain('&refresh=1m')
    expect(parseViewState(Object.fromEntries(new URL(href, 'http://x').searchParams)).state).toEqual({ ...refreshing, filter: 'status >= 500' })
    const { state: plain, notices } = parseViewState({ refresh: '10s' })
    expect(plain.refresh).toBeUndefined()
    expect(notices).toEqual(['“10s” is not a refresh interval (30s, 1m, 5m); not refreshing.'])
  })

  it('keeps rows in context (around=) on links within the dataset and drops it for another dataset', () => {
    const around = parseViewState({ dataset: 'requests', around: '2026-11-21T13:00:00.000123Z~42' }).state
    expect(around.around).toBe('2026-11-21T13:00:00.000123Z~42')
    expect(viewHref('/query', around, { filter: 'status = 200' })).toContain('around=2026-11-21T13%3A00%3A00.000123Z%7E42')
    expect(viewHref('/query', around, { dataset: 'dns' })).not.toContain('around')
    expect(parseViewState({ around: 'yesterday' }).notices).toEqual(['“yesterday” is not a row of this dataset; showing the range instead of rows around it.'])
  })
})

describe('ranges relative to now', () => {
  const now = new Date('2026-11-21T13:45:30Z')
  const after = Date.parse('2026-11-21T13:46:00Z')

  it.each([
    ['now', 0],
    ['now-15m', 15 * 60_000],
    ['NOW-2h', 2 * 3_600_000],
    [' now-7d ', 7 * 86_400_000],
  ])('reads %j (ending after the current minute, as the presets do)', (text, back) => {
    expect(parseRelativeTime(text, now)).toBe(after - back)
  })

  it.each(['now-', 'now-0m', 'now+5m', 'now-1.5h', 'now-2w', 'now-1234567d', 'yesterday', ''])('refuses %j', (text) => {
    expect(RelativeTime.safeParse(text).success).toBe(false)
    expect(parseRelativeTime(text, now)).toBeNull()
  })

  it('takes range=now-… as the preset it equals, else as a custom range ending now', () => {
    expect(parseViewState({ range: 'now-15m' }, { now }).state).toMatchObject({ range: '15m', from: '', to: '' })
    expect(parseViewState({ range: 'now-5m' }, { now }).state.range).toBe('5m')
    expect(parseViewState({ range: 'now-7d' }, { now }).state).toMatchObject({ range: '7d' })
    const { state, notices } = parseViewState({ range: 'now-2h' }, { now })
    expect(notices).toEqual([])
    expect(state).toMatchObject({ range: 'custom', from: 'now-2h', to: 'now' })
    expect(resolveViewRange(state, now)).toEqual({ dateFrom: '2026-11-21T11:46:00.000Z', dateTo: '2026-11-21T13:46:00.000Z' })
    expect(parseViewState({ from: 'now-90m', to: 'now' }, { now }).state).toMatchObject({ range: 'custom', from: 'now-90m', to: 'now' })
    expect(parseViewState({ range: 'now-45d' }, { now, maxRangeDays: 31 }).notices).toEqual([
      'The range is longer than 31 days (QUERY_MAX_RANGE_DAYS); showing the last 24 hours.',
    ])
    expect(parseViewState({ range: 'now' }, { now }).notices).toEqual(['“now” is not a range; showing the last 24 hours.'])
    expect(parseViewState({ from: 'now-1x', to: 'now' }, { now }).notices[0]).toMatch(/“now-1x” is not a date or time such as 2026-11-21 13:00 or now-15m/)
  })

  it('offers the 5- and 15-minute presets', () => {
    expect(resolveViewRange({ range: '5m', from: '', to: '', tz: 'UTC' }, now)).toEqual({
      dateFrom: '2026-11-21T13:41:00.000Z',
      dateTo: '2026-11-21T13:46:00.000Z',
    })
    expect(resolveViewRange({ range: '15m', from: '', to: '', tz: 'UTC' }, now).dateFrom).toBe('2026-11-21T13:31:00.000Z')
  })

  it('zooms out: a range ending now reaches back twice as far, a fixed window grows around its centre', () => {
    const z = (range: ViewState['range'], from = '', to = '') => zoomOut({ range, from, to, tz: 'UTC' }, now)
    expect(z('1h')).toEqual({ range: 'custom', from: 'now-2h', to: 'now' })
    expect(z('15m')).toEqual({ range: 'custom', from: 'now-30m', to: 'now' })
    expect(z('24h')).toEqual({ range: 'custom', from: 'now-2d', to: 'now' })
    expect(z('custom', 'now-12h', 'now')).toEqual({ range: '24h', from: '', to: '' })
    expect(z('custom', '2026-11-20 10:00', '2026-11-20 12:00')).toEqual({ range: 'custom', from: '2026-11-20T09:00:00.000Z', to: '2026-11-20T13:00:00.000Z' })
    expect(z('yesterday')).toEqual({ range: 'custom', from: '2026-11-19T12:00:00.000Z', to: '2026-11-21T12:00:00.000Z' })
    const zoomed = parseViewState(z('custom', '2026-11-20 10:00', '2026-11-20 12:00'), { now })
    expect(zoomed.notices).toEqual([])
  })

  it('pins a range typed relative to now for the exact-window link', () => {
    const { state } = parseViewState({ range: 'now-2h' }, { now })
    expect(pinnedWindow(state, now)).toMatchObject({ range: 'custom', from: '2026-11-21 11:46:00', to: '2026-11-21 13:46:00' })
  })
})

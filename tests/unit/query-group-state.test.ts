import { describe, expect, it } from 'vitest'
import { DATASETS } from '@/lib/datasets/catalog'
import { defaultGroupColumn, groupableColumns, groupHref, groupParams, groupSubmitQuery, parseGroupState } from '@/lib/view/group-state'
import { parseViewState } from '@/lib/view/view-state'

// The group-by page's URL parameters: parsed with defaults and notices, written back the same way.

const SORTS = ['count', 'errors', 'error_rate', 'p50', 'p95', 'value']

describe('group-by URL state', () => {
  it('reads one or two columns, comma-separated or repeated (the form sends `by` twice)', () => {
    expect(parseGroupState({ by: 'route,status' }, 'requests', SORTS).group.by).toEqual(['route', 'status'])
    expect(parseGroupState({ by: ['route', 'status'] }, 'requests', SORTS).group.by).toEqual(['route', 'status'])
    expect(parseGroupState({ by: ['route', ''] }, 'requests', SORTS).group.by).toEqual(['route'])
    expect(parseGroupState({ by: 'route,route' }, 'requests', SORTS).group.by).toEqual(['route'])
  })

  it('falls back with a notice for what cannot be used', () => {
    const unknown = parseGroupState({ by: 'secret,time,status' }, 'requests', SORTS)
    expect(unknown.group.by).toEqual(['status'])
    expect(unknown.notices).toEqual(['“secret”, “time” cannot be grouped by in API requests; left out.'])
    const three = parseGroupState({ by: 'route,status,method' }, 'requests', SORTS)
    expect(three.group.by).toEqual(['route', 'status'])
    expect(three.notices).toEqual(['Groups are by one or two columns; the first two are used.'])
    const sort = parseGroupState({ by: 'route', gsort: '-bytes_sent' }, 'requests', SORTS)
    expect(sort.group).toMatchObject({ sort: 'count', desc: true })
    expect(sort.notices[0]).toMatch(/cannot be sorted by “bytes_sent”/)
    expect(parseGroupState({}, 'sessions', SORTS).group.by).toEqual([defaultGroupColumn(DATASETS.sessions)])
    const week = parseGroupState({ by: 'route', every: 'week' }, 'requests', SORTS)
    expect(week.group.every).toBe('')
    expect(week.notices).toEqual(['Groups can be split per hour or per day, not “week”; not split.'])
  })

  it('keeps the period in the URL (every=hour, every=day) and leaves an empty Per out of the submitted query', () => {
    for (const every of ['hour', 'day'] as const) {
      const { group, notices } = parseGroupState({ by: 'route', every }, 'requests', SORTS)
      expect(notices).toEqual([])
      expect(group.every).toBe(every)
      expect(groupParams(group)).toEqual({ by: 'route', every })
      const { state } = parseViewState({ dataset: 'requests', range: '24h' })
      expect(groupHref('/query/group', state, group)).toBe(`/query/group?dataset=requests&range=24h&by=route&every=${every}`)
    }
    const none = new URLSearchParams(
      groupSubmitQuery(
        [['range', '24h']],
        [
          ['by', 'route'],
          ['every', ''],
        ],
      ),
    )
    expect(none.has('every')).toBe(false)
    const hour = new URLSearchParams(
      groupSubmitQuery(
        [['range', '24h']],
        [
          ['by', 'route'],
          ['every', 'hour'],
        ],
      ),
    )
    expect(hour.get('every')).toBe('hour')
  })

  it('never offers the time column or JSON columns', () => {
    for (const d of Object.values(DATASETS)) {
      const cols = groupableColumns(d)
      expect(cols).not.toContain(d.timeColumn)
      for (const c of d.columns) if (c.type === 'json' || c.type === 'timestamp') expect(cols).not.toContain(c.name)
    }
  })

  it('writes back what it reads', () => {
    const sp = { by: 'route,status', gsort: 'error_rate', rows: '1' }
    const { group } = parseGroupState(sp, 'requests', SORTS)
    expect(group).toEqual({ by: ['route', 'status'], sort: 'error_rate', desc: false, rows: true, every: '' })
    expect(groupParams(group)).toEqual(sp)
    const { state } = parseViewState({ dataset: 'requests', range: '7d', filter: 'status >= 500' })
    const href = groupHref('/query/group', state, group, { sort: 'count', desc: true })
    expect(href).toBe('/query/group?dataset=requests&range=7d&filter=status+%3E%3D+500&by=route%2Cstatus&rows=1')
    const back = Object.fromEntries(new URL(href, 'http://x').searchParams)
    expect(parseGroupState(back, 'requests', SORTS).group).toEqual({ ...group, sort: 'count', desc: true })
  })
})

describe('the Group button', () => {
  it('submits the range standing in the query form, not the one the page was rendered with', () => {
    const view: Array<[string, string]> = [
      ['dataset', 'http'],
      ['by', 'action'],
      ['range', '30d'],
      ['filter', "action = 'block'"],
    ]
    const group: Array<[string, string]> = [
      ['dataset', 'http'],
      ['range', 'custom'],
      ['from', '2026-11-01'],
      ['to', '2026-11-02'],
      ['limit', '25'],
      ['by', 'route'],
      ['by', ''],
      ['gsort', '-errors'],
    ]
    const q = new URLSearchParams(groupSubmitQuery(view, group))
    expect(q.getAll('range')).toEqual(['30d'])
    // The query form leaves from/to out for a preset; the old custom bounds must not come back.
    expect(q.has('from') || q.has('to')).toBe(false)
    // What only the group form carries (the rows page's rows per page) is kept.
    expect(q.get('limit')).toBe('25')
    expect(q.get('filter')).toBe("action = 'block'")
    expect(q.getAll('by')).toEqual(['route', ''])
    expect(q.get('gsort')).toBe('-errors')
    expect(parseGroupState(Object.fromEntries([['by', q.getAll('by')]]), 'requests', SORTS).group.by).toEqual(['route'])
    expect(parseViewState(Object.fromEntries(q)).state.range).toBe('30d')
  })
})

import { describe, expect, it } from 'vitest'
import { parseViewState, rangeRequest, resolveViewRange, toInputValue, viewHref } from '@/lib/query/view-state'

// The query pages' URL state: parsing, range presets and the links built from it.

const NOW = new Date('2026-11-21T13:45:30.250Z')

describe('parseViewState', () => {
  it('defaults to the request log over the last 24 hours, 100 rows', () => {
    expect(parseViewState({})).toEqual({ state: { dataset: 'requests', range: '24h', from: '', to: '', filter: '', limit: 100, offset: 0, cursor: '' }, unknownDataset: null })
  })

  it('reads every field, the first of repeated ones, and passes numbers on for validation', () => {
    const { state } = parseViewState({ dataset: 'dns', range: '7d', filter: ["rcode = 3", 'x'], limit: '501', offset: 'abc' })
    expect(state).toMatchObject({ dataset: 'dns', range: '7d', filter: 'rcode = 3', limit: 501 })
    expect(state.offset).toBeNaN()
  })

  it('reads from/to without a range as custom, and names an unknown dataset', () => {
    expect(parseViewState({ from: '2026-11-01', to: '2026-11-02' }).state.range).toBe('custom')
    expect(parseViewState({ dataset: 'pg_shadow' })).toMatchObject({ state: { dataset: 'requests' }, unknownDataset: 'pg_shadow' })
  })
})

describe('resolveViewRange', () => {
  it.each([
    ['1h', '2026-11-21T12:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['24h', '2026-11-20T13:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['7d', '2026-11-14T13:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['30d', '2026-10-22T13:46:00.000Z', '2026-11-21T13:46:00.000Z'],
    ['today', '2026-11-21', '2026-11-21'],
    ['yesterday', '2026-11-20', '2026-11-20'],
  ] as const)('%s → %s … %s', (range, dateFrom, dateTo) => {
    expect(resolveViewRange({ range, from: '', to: '' }, NOW)).toEqual({ dateFrom, dateTo })
  })

  it('passes a custom range through as typed', () => {
    expect(resolveViewRange({ range: 'custom', from: '2026-11-01T08:00', to: '2026-11-02' }, NOW)).toEqual({ dateFrom: '2026-11-01T08:00', dateTo: '2026-11-02' })
  })

  it('gives the query functions the dataset, the resolved range and a filter only when there is one', () => {
    const { state } = parseViewState({ dataset: 'dns', range: 'yesterday' })
    expect(rangeRequest(state, NOW)).toEqual({ dataset: 'dns', dateFrom: '2026-11-20', dateTo: '2026-11-20', filter: undefined })
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
  })

  it('keeps a page’s cursor on its own link and drops it on any change that does not set it', () => {
    const page = { ...state, offset: 200, cursor: '2026-11-20T10:00:00.000123Z~42' }
    expect(viewHref('/query', page)).toBe('/query?dataset=http&range=7d&filter=action+%3D+%27block%27&offset=200&cursor=2026-11-20T10%3A00%3A00.000123Z%7E42')
    expect(viewHref('/query', page, { offset: 100 })).toBe('/query?dataset=http&range=7d&filter=action+%3D+%27block%27&offset=100')
    expect(viewHref('/query', page, { offset: 300, cursor: 'next' })).toContain('&offset=300&cursor=next')
    expect(parseViewState({ cursor: 'abc' }).state.cursor).toBe('abc')
  })

  it('round-trips through the parser', () => {
    const href = viewHref('/query', state, { limit: 25 })
    expect(parseViewState(Object.fromEntries(new URL(href, 'http://x').searchParams)).state).toEqual({ ...state, limit: 25 })
  })

  it('fills datetime-local inputs', () => {
    expect(toInputValue('2026-11-21T13:46:00.000Z')).toBe('2026-11-21T13:46')
    expect(toInputValue('2026-11-21')).toBe('2026-11-21T00:00')
    expect(toInputValue('2026-11-21', true)).toBe('2026-11-21T23:59')
  })
})

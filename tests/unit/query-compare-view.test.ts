import { describe, expect, it } from 'vitest'
import { baselineRange, findSplitColumn, splitColumns } from '@/lib/view/compare'
import { parseViewState, viewQuery } from '@/lib/view/view-state'

describe('compare and split in the URL', () => {
  it('reads and writes compare= and split=', () => {
    const { state, notices } = parseViewState({ dataset: 'requests', range: '24h', compare: 'week', split: 'status_class' })
    expect(notices).toEqual([])
    expect(state).toMatchObject({ compare: 'week', split: 'status_class' })
    expect(viewQuery(state)).toBe('dataset=requests&range=24h&compare=week&split=status_class')
  })

  it('drops what it cannot use, with a sentence each, and leaves other links as they were', () => {
    const { state, notices } = parseViewState({ dataset: 'dns', compare: 'toString', split: 'status_class' })
    expect(state.compare).toBeUndefined()
    expect(state.split).toBeUndefined()
    expect(notices).toHaveLength(2)
    expect(viewQuery(parseViewState({ dataset: 'dns' }).state)).toBe('dataset=dns&range=24h')
  })

  it('offers each rollup dimension, a status column also as its class', () => {
    expect(
      splitColumns('requests')
        .map((c) => c.name)
        .slice(0, 3),
    ).toEqual(['status_class', 'status', 'route'])
    expect(findSplitColumn('http', 'http_status_code_class')).toMatchObject({ column: 'http_status_code', statusClass: true })
    expect(findSplitColumn('dns', 'rcode')).toMatchObject({ column: 'rcode', statusClass: false })
  })

  it('places the baseline window', () => {
    expect(baselineRange('previous', '2026-01-10T06:00:00Z', '2026-01-10T12:00:00Z')).toEqual({
      dateFrom: '2026-01-10T00:00:00.000Z',
      dateTo: '2026-01-10T06:00:00.000Z',
      shiftMs: 21_600_000,
    })
    expect(baselineRange('week', '2026-01-10T00:00:00Z', '2026-01-11T00:00:00Z').dateFrom).toBe('2026-01-03T00:00:00.000Z')
  })
})

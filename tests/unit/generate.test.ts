import { describe, expect, it } from 'vitest'
import { generateGuids, formatGuid } from '@/lib/generate/guid'
import { GenerateGuidQuery, TicksQuery } from '@/lib/generate/schemas'
import { convertTicks, MAX_TICKS, ticksFromUnixMs, UNIX_EPOCH_TICKS, unixMsFromTicks } from '@/lib/generate/ticks'

describe('GUID generation', () => {
  const parse = (q: Record<string, string>) => GenerateGuidQuery.parse(q)

  it('defaults to one lower-case v4 GUID in D format', () => {
    const r = generateGuids(parse({}))
    expect(r).toMatchObject({ version: 4, format: 'D', count: 1 })
    expect(r.guids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('makes v7 GUIDs that sort by creation time', () => {
    const r = generateGuids(parse({ count: '50', version: '7' }))
    expect(r.guids.every((g) => g[14] === '7')).toBe(true)
    expect(new Set(r.guids).size).toBe(50)
    expect([...r.guids].sort()).toEqual(r.guids)
  })

  it.each([
    ['N', false, /^[0-9a-f]{32}$/],
    ['B', true, /^\{[0-9A-F-]{36}\}$/],
    ['P', false, /^\([0-9a-f-]{36}\)$/],
  ] as const)('formats %s (uppercase %s)', (format, uppercase, pattern) => {
    expect(formatGuid('e06e3596-82c0-4f31-ac5a-439a308e3dc2', format, uppercase)).toMatch(pattern)
  })

  it('honours the legacy numberOfGuids alias and the 1–500 range', () => {
    expect(generateGuids(parse({ numberOfGuids: '3' })).guids).toHaveLength(3)
    expect(GenerateGuidQuery.safeParse({ count: '501' }).success).toBe(false)
    expect(GenerateGuidQuery.safeParse({ count: '0' }).success).toBe(false)
    expect(GenerateGuidQuery.safeParse({ version: '5' }).success).toBe(false)
    expect(GenerateGuidQuery.safeParse({ format: 'x' }).success).toBe(false)
    expect(GenerateGuidQuery.safeParse({ uppercase: 'maybe' }).success).toBe(false)
  })
})

describe('.NET ticks', () => {
  it('uses 621355968000000000 as the Unix epoch', () => {
    expect(ticksFromUnixMs(0)).toBe(UNIX_EPOCH_TICKS)
    expect(unixMsFromTicks(UNIX_EPOCH_TICKS)).toBe(0)
  })

  // Cross-checked: DateTime(2000,1,1).Ticks = 630822816000000000, plus 9497 days.
  it('converts an instant to ticks exactly (beyond 2^53)', () => {
    const r = convertTicks(TicksQuery.parse({ dateTime: '2026-01-01T00:00:00Z' }))
    expect(r.ticks).toBe('639028224000000000')
    expect(r.dateTime).toBe('2026-01-01T00:00:00.000Z')
  })

  it('converts ticks back, truncating sub-millisecond ticks', () => {
    expect(convertTicks(TicksQuery.parse({ ticks: '639028224000009999' })).dateTime).toBe('2026-01-01T00:00:00.000Z')
    expect(convertTicks(TicksQuery.parse({ ticks: '0' })).dateTime).toBe('0001-01-01T00:00:00.000Z')
    expect(convertTicks(TicksQuery.parse({ ticks: MAX_TICKS.toString() })).dateTime).toBe('9999-12-31T23:59:59.999Z')
  })

  it('takes offsets into account and defaults to now', () => {
    expect(convertTicks(TicksQuery.parse({ dateTime: '2026-01-01T01:00:00+01:00' })).ticks).toBe('639028224000000000')
    expect(convertTicks({}, () => 0).ticks).toBe(UNIX_EPOCH_TICKS.toString())
  })

  it('rejects out-of-range and ambiguous input', () => {
    expect(() => convertTicks(TicksQuery.parse({ ticks: (MAX_TICKS + 1n).toString() }))).toThrow(/at most/)
    expect(TicksQuery.safeParse({ ticks: '-1' }).success).toBe(false)
    expect(TicksQuery.safeParse({ dateTime: 'yesterday' }).success).toBe(false)
    expect(TicksQuery.safeParse({ dateTime: '2026-01-01', ticks: '1' }).success).toBe(false)
  })
})

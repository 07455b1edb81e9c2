import { describe, expect, it } from 'vitest'
import { formatBytes, formatChange, formatCount, formatMs, formatRate } from '@/lib/view/format'
import { formatTime, isTimeZone, parseTypedTime, wallToInstant, zoneSuffix } from '@/lib/view/time'

// How the query pages show numbers and times.

describe('formatRate', () => {
  it.each([
    [3 / 11_424, '0.03 %'],
    [47 / 11_424, '0.41 %'],
    [1 / 1_000_000, '0.0001 %'],
    [1 / 30_000, '0.003 %'],
    [0.5, '50.00 %'],
    [0, '0.00 %'],
    [1, '100.00 %'],
    [11_423 / 11_424, '99.99 %'],
    [999_999 / 1_000_000, '99.9999 %'],
    [null, '–'],
  ])('%s → %s', (ratio, text) => {
    expect(formatRate(ratio)).toBe(text)
  })

  it('never shows a non-zero rate as zero', () => {
    for (let n = 1; n <= 1e9; n *= 7) expect(formatRate(1 / n)).not.toMatch(/^0(\.0+)? %$/)
  })
})

describe('numbers', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1 KB'],
    [1536, '1.54 KB'],
    [999_600, '1 MB'],
    [12_345_678, '12.3 MB'],
    [4_200_000_000, '4.2 GB'],
    [7.5e12, '7.5 TB'],
  ])('%d bytes → %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })

  it('groups counts and rounds milliseconds', () => {
    expect(formatCount(11_424)).toBe('11,424')
    expect(formatMs(14.3219)).toBe('14.32 ms')
    expect(formatMs(null)).toBe('–')
  })
})

describe('times', () => {
  it('formats one way everywhere, in UTC or a zone', () => {
    expect(formatTime('2026-11-21T13:05:09.123Z')).toBe('2026-11-21 13:05:09 UTC')
    expect(formatTime('2026-11-21T13:05:09.123Z', 'Europe/Berlin')).toBe('2026-11-21 14:05:09 UTC+01:00')
    expect(formatTime('2026-07-21T13:05:09Z', 'Europe/Berlin')).toBe('2026-07-21 15:05:09 UTC+02:00')
    expect(formatTime('2026-11-21T13:05:09Z', 'Asia/Kolkata')).toBe('2026-11-21 18:35:09 UTC+05:30')
    expect(formatTime('2026-11-21T13:05:09Z', 'America/New_York')).toBe('2026-11-21 08:05:09 UTC-05:00')
    expect(formatTime('not a time')).toBe('not a time')
    expect(zoneSuffix(0)).toBe('UTC')
  })

  it('reads typed times in the page’s zone unless they carry an offset', () => {
    expect(parseTypedTime('2026-11-21')).toEqual({ iso: '2026-11-21T00:00:00.000Z', dateOnly: true })
    expect(parseTypedTime('2026-11-21 13:05')).toEqual({ iso: '2026-11-21T13:05:00.000Z', dateOnly: false })
    expect(parseTypedTime('2026-11-21T13:05:09.5Z', 'Europe/Berlin')?.iso).toBe('2026-11-21T13:05:09.500Z')
    expect(parseTypedTime('2026-11-21 14:05:09 UTC+01:00', 'Asia/Tokyo')?.iso).toBe('2026-11-21T13:05:09.000Z')
    expect(parseTypedTime('2026-11-21 14:05:09+0100')?.iso).toBe('2026-11-21T13:05:09.000Z')
    expect(parseTypedTime('2026-11-21 14:05:09 UTC', 'Europe/Berlin')?.iso).toBe('2026-11-21T14:05:09.000Z')
    expect(parseTypedTime('2026-11-21 14:05', 'Europe/Berlin')?.iso).toBe('2026-11-21T13:05:00.000Z')
    // What the table shows can be pasted back.
    const shown = formatTime('2026-03-29T00:30:00Z', 'Europe/Berlin')
    expect(parseTypedTime(shown, 'UTC')?.iso).toBe('2026-03-29T00:30:00.000Z')
  })

  it.each(['yesterday', '2026-13-01', '2026-02-29', '2026-11-21 24:00', '21/11/2026', ''])('rejects %j', (text) => {
    expect(parseTypedTime(text)).toBeNull()
  })

  it('settles wall times on both sides of a daylight-saving change', () => {
    // Berlin moves from +01:00 to +02:00 at 2026-03-29 01:00 UTC.
    expect(new Date(wallToInstant(Date.parse('2026-03-29T01:30:00Z'), 'Europe/Berlin')).toISOString()).toBe('2026-03-29T00:30:00.000Z')
    expect(new Date(wallToInstant(Date.parse('2026-03-29T03:30:00Z'), 'Europe/Berlin')).toISOString()).toBe('2026-03-29T01:30:00.000Z')
  })

  it('knows time zones', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true)
    expect(isTimeZone('UTC')).toBe(true)
    expect(isTimeZone('Mars/Olympus')).toBe(false)
    expect(isTimeZone('')).toBe(false)
  })
})

describe('formatChange', () => {
  it.each([
    [30, 27, '+11.1 %'],
    [15, 3, '+400 %'],
    [24, 27, '−11.1 %'],
    [27, 27, '±0 %'],
    [5, 0, 'new'],
    [0, 0, '±0 %'],
    [0, 8, '−100 %'],
  ])('%d after %d → %s', (now, before, text) => {
    expect(formatChange(now, before)).toBe(text)
  })
})

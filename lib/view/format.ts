// How the query pages show numbers. Pure: the server renders with it and the chart's axes use it
// in the browser.

const count = new Intl.NumberFormat('en')

/** 11424 → `11,424`. */
export function formatCount(n: number): string {
  return count.format(n)
}

/** 14.321 → `14.32 ms`; null → `–`. */
export function formatMs(v: number | null): string {
  return v === null ? '–' : `${count.format(Math.round(v * 100) / 100)} ms`
}

const MAX_RATE_DECIMALS = 8

/**
 * A ratio (0 to 1) as a percentage with two decimals, or more where two would hide the truth: a
 * non-zero rate never reads `0.00 %` and a rate short of one never reads `100.00 %`
 * (3 of 11,424 → `0.03 %`, 1 of 1,000,000 → `0.0001 %`). null (no rows) → `–`.
 */
export function formatRate(ratio: number | null): string {
  if (ratio === null) return '–'
  const percent = ratio * 100
  for (let decimals = 2; ; decimals++) {
    const text = percent.toFixed(decimals)
    const hidesNonZero = ratio > 0 && Number(text) === 0
    const hidesShortfall = ratio < 1 && Number(text) === 100
    if ((!hidesNonZero && !hidesShortfall) || decimals === MAX_RATE_DECIMALS) return `${text.replace(/(\.\d{2}\d*?)0+$/, '$1')} %`
  }
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB']

/** Decimal (SI) multiples, three significant digits: 1536 → `1.54 KB`, 12_345_678 → `12.3 MB`. */
export function formatBytes(bytes: number): string {
  let unit = 0
  let v = Math.abs(bytes)
  while (v >= 999.5 && unit < BYTE_UNITS.length - 1) {
    v /= 1000
    unit++
  }
  const sign = bytes < 0 ? '-' : ''
  if (unit === 0) return `${sign}${count.format(v)} B`
  return `${sign}${Number(v.toPrecision(3))} ${BYTE_UNITS[unit]}`
}

/** How a figure moved from an earlier window: `+12.5 %`, `−3 %`, `±0 %`, or `new` when it was 0. */
export function formatChange(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0 %' : 'new'
  const change = ((now - before) / before) * 100
  if (Math.abs(change) < 0.05) return '±0 %'
  return `${change > 0 ? '+' : '−'}${Math.abs(change).toFixed(1).replace(/\.0$/, '')} %`
}

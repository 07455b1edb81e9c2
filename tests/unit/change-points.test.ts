import { describe, expect, it } from 'vitest'
import { changePoints } from '@/lib/view/change-points'

// Change points of count series: made-up series whose changes are known, and noisy series with none.

/** Counts around `mean` with Poisson-like noise, the same every run (a linear congruential generator). */
function noisy(n: number, mean: number, seed = 7): number[] {
  let s = seed
  const next = () => (s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  return Array.from({ length: n }, () => {
    // Sum of uniforms: roughly normal with the variance of a count (mean).
    const z = Array.from({ length: 12 }, next).reduce((a, b) => a + b, 0) - 6
    return Math.max(0, Math.round(mean + z * Math.sqrt(mean)))
  })
}

describe('changePoints', () => {
  it.each([
    [5, 1],
    [80, 2],
    [1000, 3],
    [20_000, 4],
  ])('finds nothing in noise around %i rows a bucket', (mean, seed) => {
    expect(changePoints(noisy(200, mean, seed))).toEqual([])
  })

  it('finds a spike and a dip at their buckets, with the level they departed from', () => {
    const values = noisy(100, 80)
    values[40] = 400
    values[70] = 2
    const points = changePoints(values)
    expect(points.map((p) => [p.index, p.kind])).toEqual([
      [40, 'spike'],
      [70, 'dip'],
    ])
    expect(points[0].value).toBe(400)
    expect(Math.abs(points[0].expected - 80)).toBeLessThan(10)
  })

  it('a spike over two buckets is one, at its higher bucket', () => {
    const values = noisy(60, 50)
    values[30] = 300
    values[31] = 500
    expect(changePoints(values).map((p) => [p.index, p.kind])).toEqual([[31, 'spike']])
  })

  it('finds a step up and a step down where the level changes, not a spike', () => {
    const values = [...noisy(50, 100), ...noisy(50, 400, 11), ...noisy(50, 60, 13)]
    expect(changePoints(values).map((p) => [p.index, p.kind])).toEqual([
      [50, 'step up'],
      [100, 'step down'],
    ])
  })

  it('ignores small changes on a quiet series, and judges nothing before six buckets of history', () => {
    expect(changePoints([0, 1, 0, 0, 2, 0, 1, 4, 0, 0, 1])).toEqual([])
    expect(changePoints([1, 1, 1, 1, 1, 900, 1, 1])).toEqual([])
    expect(changePoints([1, 1, 1, 1, 1, 1, 900, 1, 1]).map((p) => p.kind)).toEqual(['spike'])
  })
})

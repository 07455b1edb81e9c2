// Change points of a count series (the rows per time bucket of a histogram): a spike or dip is one
// bucket far from the buckets before it; a step is a bucket from which the level stays changed.
// Deterministic and cheap (a histogram has at most 200 buckets): each bucket is compared with the
// median of the WINDOW buckets before it, in units of their spread — the larger of the median
// absolute deviation (robust to earlier spikes) and the square root of the median (the noise of a
// count, so a quiet series does not flag every change of one or two rows). Pure: the page and the
// chart both use it.

export type ChangeKind = 'spike' | 'dip' | 'step up' | 'step down'

export interface ChangePoint {
  /** Index of the bucket where it happens. */
  index: number
  kind: ChangeKind
  /** The bucket's count, or for a step the median level after it. */
  value: number
  /** The median of the buckets before it. */
  expected: number
  /** How many spreads away from the expected level. */
  score: number
}

/** Buckets of history each bucket is compared with. */
const WINDOW = 12
/** Fewer buckets before it than this and a bucket is not judged. */
const MIN_HISTORY = 6
/** Spreads away for a spike or dip, and for a step (whose level is a median of several buckets). */
const SPIKE_SCORE = 5
const STEP_SCORE = 4
/** Changes smaller than this many rows are never flagged, however flat the series. */
const MIN_ROWS = 5

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

export function changePoints(values: number[]): ChangePoint[] {
  const found: ChangePoint[] = []
  let run = -2 // the last bucket flagged as a spike or dip
  for (let i = MIN_HISTORY; i < values.length; i++) {
    const before = values.slice(Math.max(0, i - WINDOW), i)
    const expected = median(before)
    const spread = Math.max(1.4826 * median(before.map((v) => Math.abs(v - expected))), Math.sqrt(Math.max(expected, 1)))
    const x = values[i]
    if (Math.abs(x - expected) < MIN_ROWS || Math.abs(x - expected) / spread < SPIKE_SCORE) continue
    // Does the level stay there? The median of this bucket and the ones after it (half a window at least).
    const after = values.slice(i, i + WINDOW)
    const level = median(after)
    const stepScore = Math.abs(level - expected) / spread
    if (
      after.length >= MIN_HISTORY / 2 &&
      stepScore >= STEP_SCORE &&
      Math.abs(level - expected) >= MIN_ROWS &&
      Math.sign(level - expected) === Math.sign(x - expected)
    ) {
      found.push({ index: i, kind: level > expected ? 'step up' : 'step down', value: level, expected, score: round(stepScore) })
      i += after.length - 1 // the buckets after a step are judged against the new level
      continue
    }
    const kind = x > expected ? 'spike' : 'dip'
    const point = { index: i, kind, value: x, expected, score: round(Math.abs(x - expected) / spread) } as const
    // A spike over several buckets is one spike, at its farthest bucket.
    const last = found.at(-1)
    if (last && last.kind === kind && run === i - 1) {
      if (point.score > last.score) found[found.length - 1] = point
    } else found.push(point)
    run = i
  }
  return found
}

const round = (n: number) => Math.round(n * 10) / 10

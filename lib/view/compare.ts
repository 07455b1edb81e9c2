import { DATASETS, type DatasetId } from '@/lib/datasets/catalog'

// Comparison with an earlier window and split-by columns: the vocabulary the query pages put in
// the URL (`compare=previous|day|week`, `split=<column>`) and the engine reads (lib/query/compare.ts,
// lib/query/split.ts). Pure: the browser uses it too.

export const COMPARE_MODES = {
  previous: 'Previous period',
  day: 'Same window a day earlier',
  week: 'Same window a week earlier',
} as const
export type CompareMode = keyof typeof COMPARE_MODES
export const COMPARE_MODE_IDS = Object.keys(COMPARE_MODES) as CompareMode[]

const DAY_MS = 86_400_000

/** How far the baseline window lies before the current one, ms: its length for `previous`. */
export function compareShiftMs(mode: CompareMode, fromMs: number, toMs: number): number {
  return mode === 'previous' ? toMs - fromMs : mode === 'day' ? DAY_MS : 7 * DAY_MS
}

/** The baseline window of [from, to): same length, `compareShiftMs` earlier. */
export function baselineRange(mode: CompareMode, from: string, to: string): { dateFrom: string; dateTo: string; shiftMs: number } {
  const [a, b] = [Date.parse(from), Date.parse(to)]
  const shiftMs = compareShiftMs(mode, a, b)
  return { dateFrom: new Date(a - shiftMs).toISOString(), dateTo: new Date(b - shiftMs).toISOString(), shiftMs }
}

/** Suffix of a derived "status class" split: `status_class` groups `status` as 2xx, 3xx, 4xx, 5xx. */
export const CLASS_SUFFIX = '_class'
const STATUS_COLUMNS = new Set(['status', 'http_status_code'])

export interface SplitColumn {
  /** The name in the URL and the API. */
  name: string
  /** The dataset column it reads (the same name unless derived). */
  column: string
  /** True for a status class (value / 100 as `Nxx`). */
  statusClass: boolean
  label: string
}

/**
 * Columns a chart may be split (stacked) by: the dataset's rollup dimensions (the columns the
 * rollup groups by, low-cardinality or capped to the top values), a status column first as its
 * class (2xx…5xx).
 */
export function splitColumns(dataset: DatasetId): SplitColumn[] {
  const def = DATASETS[dataset]
  const out: SplitColumn[] = []
  for (const name of def.rollup.dimensions) {
    if (STATUS_COLUMNS.has(name)) out.push({ name: `${name}${CLASS_SUFFIX}`, column: name, statusClass: true, label: `${name} class (2xx…5xx)` })
    out.push({ name, column: name, statusClass: false, label: name })
  }
  return out
}

export function findSplitColumn(dataset: DatasetId, name: string): SplitColumn | undefined {
  return splitColumns(dataset).find((c) => c.name === name)
}

/** Top values kept as their own series; the rest are summed as "other". */
export const SPLIT_TOP_DEFAULT = 5
export const SPLIT_TOP_MAX = 10
export const OTHER_LABEL = 'other'

/** `compare` and `split` of a page URL; a value that cannot be used is dropped with a sentence. */
export function parseCompareParams(
  dataset: DatasetId,
  compare: string,
  split: string,
): { state: { compare?: CompareMode; split?: string }; notices: string[] } {
  const state: { compare?: CompareMode; split?: string } = {}
  const notices: string[] = []
  if (Object.hasOwn(COMPARE_MODES, compare)) state.compare = compare as CompareMode
  else if (compare) notices.push(`“${compare}” is not a comparison (${COMPARE_MODE_IDS.join(', ')}); comparing with nothing.`)
  if (findSplitColumn(dataset, split)) state.split = split
  else if (split) notices.push(`Charts cannot be split by “${split}” in ${DATASETS[dataset].label}; not split.`)
  return { state, notices }
}

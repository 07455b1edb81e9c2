import { formatWallTime } from '@/lib/view/time'
import { parseRelativeTime, resolveViewRange, type ViewState } from '@/lib/view/view-state'

/**
 * The state with its range pinned to the instants it stands for now: a custom from/to in the
 * page's zone, to the second, so a link or saved view opened later shows this same window (“last
 * 24 hours” would show another). A custom range of dates is already pinned and stays as typed.
 */
export function pinnedWindow(state: ViewState, now = new Date()): ViewState {
  const base = { ...state, offset: 0, cursor: '' }
  // A custom range typed relative to now (now-2h → now) moves on like a preset: it is pinned too.
  if (state.range === 'custom' && parseRelativeTime(state.from, now) === null && parseRelativeTime(state.to, now) === null) return base
  const { dateFrom, dateTo } = resolveViewRange(state, now)
  return { ...base, range: 'custom', from: formatWallTime(Date.parse(dateFrom), state.tz), to: formatWallTime(Date.parse(dateTo), state.tz) }
}

/** The time a server-rendered page is rendered at (once per request), to tell a range still under way. */
export const renderTime = (): number => Date.now()

'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useState } from 'react'
import { formatTime } from '@/lib/view/time'
import { REFRESH_INTERVALS, viewHref, type RefreshId, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

const LABELS: Record<RefreshId, string> = { '30s': 'every 30 s', '1m': 'every minute', '5m': 'every 5 minutes' }

// Dashboard auto-refresh: the interval lives in the URL (`refresh=1m`), so a shared or saved view
// refreshes too. Each tick re-renders the page on the server (a relative range moves on with it),
// only while the tab is visible; a hidden tab catches up as soon as it is shown again.
export function AutoRefresh({ path, state, renderedAt }: { path: string; state: ViewState; renderedAt: number }) {
  const router = useRouter()
  const [due, setDue] = useState(false)
  useEffect(() => {
    if (!state.refresh) return
    const ms = REFRESH_INTERVALS[state.refresh] * 1000
    const tick = () => (document.visibilityState === 'visible' ? router.refresh() : setDue(true))
    const timer = setInterval(tick, ms)
    const onVisible = () => {
      if (document.visibilityState !== 'visible') return
      setDue((wasDue) => {
        if (wasDue) router.refresh()
        return false
      })
    }
    document.addEventListener('visibilitychange', onVisible)
    return () => {
      clearInterval(timer)
      document.removeEventListener('visibilitychange', onVisible)
    }
  }, [router, state.refresh, renderedAt])
  return (
    <label className={styles.autoRefresh}>
      Auto-refresh
      <select
        value={state.refresh ?? ''}
        onChange={(e) => router.replace(viewHref(path, state, { refresh: (e.target.value || undefined) as RefreshId | undefined }))}
        data-testid="refresh-select"
      >
        <option value="">Off</option>
        {(Object.keys(REFRESH_INTERVALS) as RefreshId[]).map((id) => (
          <option key={id} value={id}>
            {LABELS[id]}
          </option>
        ))}
      </select>
      <span className={styles.hint} data-testid="refreshed-at">
        {state.refresh ? `updated ${formatTime(renderedAt, state.tz)}${due ? ' · paused while the tab is hidden' : ''}` : ''}
      </span>
    </label>
  )
}

'use client'

import Link from 'next/link'
import { useSyncExternalStore } from 'react'
import { UTC } from '@/lib/view/time'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || UTC
const never = () => () => {}

// UTC or the browser's own time zone, kept in the URL (tz=…) so the server renders the times and a
// shared link shows the times its author saw. Only the browser knows its zone, hence a client leaf.
export function TimeZoneToggle({ path, state }: { path: string; state: ViewState }) {
  const local = useSyncExternalStore(never, browserZone, () => null)
  const isUtc = state.tz === UTC
  return (
    <nav className={styles.zones} aria-label="Time zone">
      <Link href={viewHref(path, state, { tz: UTC })} aria-current={isUtc ? 'true' : undefined}>
        UTC
      </Link>
      {!isUtc ? (
        <Link href={viewHref(path, state)} aria-current="true" title={`Times are shown in ${state.tz}`}>
          {state.tz}
        </Link>
      ) : local && local !== UTC ? (
        <Link href={viewHref(path, state, { tz: local })} title={`Show times in ${local}`}>
          Local ({local})
        </Link>
      ) : (
        <span className={styles.disabled} title="This browser's time zone is UTC">
          Local
        </span>
      )}
      {!isUtc && local && local !== state.tz ? (
        <Link href={viewHref(path, state, { tz: local })} title={`Show times in ${local}`}>
          Local ({local})
        </Link>
      ) : null}
    </nav>
  )
}

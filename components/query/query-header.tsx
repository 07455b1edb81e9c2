import Link from 'next/link'
import type { AccessResult } from '@/lib/access/policy'
import { formatTime } from '@/lib/view/time'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import { TimeZoneToggle } from './time-zone-toggle-client'
import styles from './query.module.css'

export type QueryPageId = 'query' | 'dashboard' | 'group' | 'saved'

// The application bar: a skip link, where you are, the time zone, and who the access policy says
// you are. Switching between rows and dashboard keeps the dataset, range, filter and columns.
export function QueryHeader({
  base,
  current,
  access,
  state,
  skipTo,
}: {
  base: string
  current: QueryPageId
  access: AccessResult
  state: ViewState
  skipTo: { id: string; label: string }
}) {
  const paths: Record<QueryPageId, string> = { query: base || '/', dashboard: `${base}/dashboard`, group: `${base}/group`, saved: `${base}/saved` }
  const link = (page: QueryPageId, label: string, href: string) => (
    <Link href={href} aria-current={current === page ? 'page' : undefined}>
      {label}
    </Link>
  )
  return (
    <>
      <a className={styles.skip} href={`#${skipTo.id}`}>
        {skipTo.label}
      </a>
      <header className={styles.header}>
        <h1>Query application</h1>
        <nav className={styles.nav} aria-label="Pages">
          {link('query', 'Rows', viewHref(paths.query, state, { offset: 0 }))}
          {link('dashboard', 'Dashboard', viewHref(paths.dashboard, state, { offset: 0 }))}
          {link('group', 'Group by', viewHref(paths.group, state, { offset: 0 }))}
          {link('saved', 'Saved and history', viewHref(paths.saved, state, { offset: 0 }))}
        </nav>
        <TimeZoneToggle path={paths[current]} state={state} />
        <div className={styles.identity} data-testid="identity">
          {!access.ok ? (
            <span>Not signed in</span>
          ) : access.identity.kind === 'local' ? (
            <>
              <strong>{access.identity.label}</strong>
              <span className={styles.badge} title="No access settings are configured; only loopback requests are accepted.">
                local, {access.identity.address}
              </span>
            </>
          ) : (
            <>
              <strong>{access.identity.name ?? access.identity.email ?? access.identity.subject}</strong>
              {access.identity.name && access.identity.email ? ` ${access.identity.email}` : null}
              <span className={styles.badge} title={`Issuer ${access.identity.issuer}`}>
                until {formatTime(access.identity.expiresAt, state.tz)}
              </span>
            </>
          )}
        </div>
      </header>
    </>
  )
}

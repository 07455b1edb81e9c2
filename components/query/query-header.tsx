import Link from 'next/link'
import type { AccessResult } from '@/lib/access/policy'
import { viewHref, type ViewState } from '@/lib/query/view-state'
import styles from './query.module.css'

const time = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`

// The application bar: where you are, and who the access policy says you are. Switching between
// rows and dashboard keeps the dataset, range and filter.
export function QueryHeader({ base, current, access, state }: { base: string; current: 'query' | 'dashboard'; access: AccessResult; state: ViewState }) {
  const link = (page: 'query' | 'dashboard', label: string, href: string) => (
    <Link href={href} aria-current={current === page ? 'page' : undefined}>
      {label}
    </Link>
  )
  return (
    <header className={styles.header}>
      <h1>Query application</h1>
      <nav className={styles.nav} aria-label="Pages">
        {link('query', 'Rows', viewHref(base || '/', state, { offset: 0 }))}
        {link('dashboard', 'Dashboard', viewHref(`${base}/dashboard`, state, { offset: 0 }))}
      </nav>
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
              until {time(access.identity.expiresAt)}
            </span>
          </>
        )}
      </div>
    </header>
  )
}

import type { ReactNode } from 'react'
import styles from './query.module.css'

// The page states besides results: waiting, nothing found, refused or failed, and notices about
// parts of the link that were replaced by defaults.
export function LoadingState({ children }: { children: ReactNode }) {
  return (
    <div className={styles.state} role="status" aria-busy="true">
      {children}
    </div>
  )
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <div className={styles.state}>{children}</div>
}

export function ErrorState({ title, message }: { title: string; message: string }) {
  return (
    <div className={styles.error} role="alert">
      <strong>{title}</strong>
      {'\n'}
      {message}
    </div>
  )
}

export function Notices({ notices }: { notices: string[] }) {
  if (!notices.length) return null
  return (
    <div className={styles.notice} role="status">
      <strong>Some settings in this link could not be used, so defaults are shown instead:</strong>
      <ul>
        {notices.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </div>
  )
}

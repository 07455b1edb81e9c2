import type { ReactNode } from 'react'
import styles from './query.module.css'

// The page states besides results: waiting, nothing found, refused or failed.
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

import type { ReactNode } from 'react'
import styles from './query.module.css'

// A page that explains why there is nothing else to show: what happened, what to do next, and the
// request id to quote. The access policy's refusals and the unknown-address page use it.
export function StatusPage({
  status,
  title,
  what,
  next,
  requestId,
}: {
  status: number
  title: string
  what: string
  next: ReactNode
  requestId: string | null
}) {
  return (
    <main className={styles.refusal} id="main">
      <p className={styles.code}>Error {status}</p>
      <h1>{title}</h1>
      <p>{what}</p>
      <h2 className={styles.nextTitle}>What to do next</h2>
      <p>{next}</p>
      {requestId ? (
        <p className={styles.code}>
          Request id: <code>{requestId}</code>
        </p>
      ) : null}
    </main>
  )
}

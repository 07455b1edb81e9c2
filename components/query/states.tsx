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

/**
 * Shown while a dataset holds demonstration rows: where they came from (the embedded database's
 * first start only seeds PGlite; on a Postgres server only `npm run db:seed` writes them), where
 * real rows come from for this dataset, and how to remove the demo rows.
 */
export function DemoNote({
  dataset,
  embedded,
  realRows,
  ingestPath,
}: {
  dataset: string
  embedded: boolean
  realRows: 'logpush' | 'jobs' | 'request-log'
  ingestPath: string
}) {
  return (
    <div className={styles.notice} role="note" data-testid="demo-note">
      <strong>This dataset holds demonstration rows</strong> (column <code>demo</code> is true),{' '}
      {embedded ? (
        <>
          generated when the embedded database first started or by <code>npm run db:seed</code>.
        </>
      ) : (
        <>
          written by <code>npm run db:seed</code>.
        </>
      )}
      <ul>
        <li>
          {realRows === 'jobs' ? (
            <>
              Real rows: the scheduled jobs write them as they run, from a cron route or <code>npm run job -- &lt;name&gt;</code> (docs/jobs.md).
            </>
          ) : realRows === 'request-log' ? (
            <>Real rows: the API writes one for each request it answers and each MCP tool call, in batches a few seconds apart.</>
          ) : (
            <>
              Load real logs: point a Cloudflare Logpush job for {dataset} at <code>{ingestPath}</code> with the <code>LOGPUSH_SECRET</code> header
              (docs/query.md, “Data: seeding and ingest”).
            </>
          )}
        </li>
        <li>
          Remove the demonstration rows: {embedded ? 'stop the server, run ' : 'run '}
          <code>npm run db:seed -- --remove-demo</code>
          {embedded ? ', start it again' : ''}. Real rows stay.
        </li>
      </ul>
    </div>
  )
}

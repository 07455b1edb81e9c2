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

/** Shown while a dataset holds demonstration rows: how to load real logs, how to remove the demo rows. */
/** Datasets the scheduled jobs write (lib/jobs), not Logpush. */
const JOB_DATASETS = ['job_runs', 'domain_checks']

export function DemoNote({ dataset, ingestPath }: { dataset: string; ingestPath: string }) {
  return (
    <div className={styles.notice} role="note" data-testid="demo-note">
      <strong>This dataset holds demonstration rows</strong> (column <code>demo</code> is true), generated when the embedded database first started.
      <ul>
        <li>
          {JOB_DATASETS.includes(dataset) ? (
            <>
              Real rows: the scheduled jobs write them as they run, from a cron route or <code>npm run job -- &lt;name&gt;</code> (README, “Scheduled jobs”).
            </>
          ) : (
            <>
              Load real logs: point a Cloudflare Logpush job for {dataset} at <code>{ingestPath}</code> with the <code>LOGPUSH_SECRET</code> header (README, “Data: seeding and ingest”).
            </>
          )}
        </li>
        <li>
          Remove the demonstration rows: stop the server, run <code>npm run db:seed -- --remove-demo</code>, start it again. Real rows stay.
        </li>
      </ul>
    </div>
  )
}

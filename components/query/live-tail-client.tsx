'use client'

import Link from 'next/link'
import { useEffect, useRef, useState } from 'react'
import type { CellValue } from '@/lib/view/drilldown'
import { formatCount } from '@/lib/view/format'
import { formatTime } from '@/lib/view/time'
import type { ViewState } from '@/lib/view/view-state'
import { ResultsGrid, type GridColumn } from './results-grid-client'
import { EmptyState } from './states'
import styles from './query.module.css'

// Live tail: the rows page in a mode that shows rows as they are written. It polls the tail API
// (POST /query/api/tail, lib/query/tail.ts) with the cursor of its last answer, one request at a
// time, every POLL_MS while the tab is visible. Bounded: at most PER_POLL rows per answer (the API
// counts the rest as skipped), the newest KEPT_ROWS in memory, and it stops by itself after
// STOP_AFTER_MS; Resume goes on from where it stopped. A failed poll is retried with a growing
// pause; a filter the API rejects stops the tail with the API's sentence.

const POLL_MS = 2000
const PER_POLL = 100
const KEPT_ROWS = 500
const STOP_AFTER_MS = 10 * 60_000
const MAX_BACKOFF_MS = 30_000

type Row = Record<string, CellValue>
type Status = 'live' | 'paused' | 'stopped'

interface LiveTailProps {
  api: string
  path: string
  state: ViewState
  columns: GridColumn[]
  fields: GridColumn[]
  /** The rows page of the same view, without live mode. */
  rowsHref: string
}

interface TailAnswer {
  rows: Row[]
  skipped: number
  cursor: string
}

export function LiveTail({ api, path, state, columns, fields, rowsHref }: LiveTailProps) {
  const [rows, setRows] = useState<Row[]>([])
  const [received, setReceived] = useState(0)
  const [skipped, setSkipped] = useState(0)
  const [status, setStatus] = useState<Status>('live')
  const [stoppedBy, setStoppedBy] = useState<'time' | 'error' | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [lastPoll, setLastPoll] = useState<number | null>(null)
  const [stopsAt, setStopsAt] = useState(() => Date.now() + STOP_AFTER_MS)
  const cursor = useRef<string | undefined>(undefined)

  useEffect(() => {
    if (status !== 'live') return
    const abort = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    let failures = 0
    const next = (ms: number) => {
      timer = setTimeout(poll, ms)
    }
    async function poll() {
      if (Date.now() >= stopsAt) {
        setStoppedBy('time')
        setStatus('stopped')
        return
      }
      if (document.hidden) return next(POLL_MS)
      try {
        const res = await fetch(api, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ dataset: state.dataset, filter: state.filter || undefined, since: cursor.current, limit: PER_POLL }),
          signal: abort.signal,
        })
        const body = (await res.json().catch(() => null)) as (TailAnswer & { error?: { message?: string } }) | null
        // A request the API refuses (a filter it cannot run, access gone) will not succeed on retry.
        if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
          setError(body?.error?.message ?? `The tail was refused (HTTP ${res.status}).`)
          setStoppedBy('error')
          setStatus('stopped')
          return
        }
        if (!res.ok || !body) throw new Error(body?.error?.message ?? `HTTP ${res.status}`)
        cursor.current = body.cursor
        if (body.rows.length) setRows((kept) => [...[...body.rows].reverse(), ...kept].slice(0, KEPT_ROWS))
        setReceived((n) => n + body.rows.length + body.skipped)
        setSkipped((n) => n + body.skipped)
        setLastPoll(Date.now())
        setError(null)
        failures = 0
        next(POLL_MS)
      } catch (e) {
        if (abort.signal.aborted) return
        failures++
        const wait = Math.min(POLL_MS * 2 ** failures, MAX_BACKOFF_MS)
        setError(`${e instanceof Error ? e.message : String(e)}; trying again in ${Math.round(wait / 1000)} s.`)
        next(wait)
      }
    }
    void poll()
    return () => {
      abort.abort()
      clearTimeout(timer)
    }
  }, [status, stopsAt, api, state.dataset, state.filter])

  function resume() {
    setStoppedBy(null)
    setError(null)
    setStopsAt(Date.now() + STOP_AFTER_MS)
    setStatus('live')
  }

  const statusText =
    status === 'live'
      ? `Live: new rows appear at the top, checked every ${POLL_MS / 1000} s; stops by itself at ${formatTime(stopsAt, state.tz)}.`
      : status === 'paused'
        ? 'Paused: rows written meanwhile come when you resume (the newest, if many).'
        : stoppedBy === 'time'
          ? `Stopped after ${STOP_AFTER_MS / 60_000} minutes. Resume to go on from where it stopped.`
          : 'Stopped.'
  return (
    <section aria-labelledby="live-title" data-testid="live-tail" data-status={status}>
      <div className={styles.summary}>
        <h2 id="live-title" className={styles.liveTitle}>
          Live tail
        </h2>
        <span role="status" data-testid="live-status">
          {statusText}
        </span>
      </div>
      <div className={styles.tools}>
        {status === 'live' ? (
          <button type="button" onClick={() => setStatus('paused')}>
            Pause
          </button>
        ) : (
          <button type="button" onClick={resume}>
            Resume
          </button>
        )}
        <Link href={rowsHref}>Back to the rows of a range</Link>
        <span data-testid="live-count">
          {formatCount(received)} {received === 1 ? 'row' : 'rows'} received
          {received > rows.length ? `, the newest ${formatCount(rows.length)} kept` : ''}
          {skipped ? ` (${formatCount(skipped)} skipped: more arrived than ${PER_POLL} per check)` : ''}
        </span>
        {lastPoll ? <span className={styles.hint}>last checked {formatTime(lastPoll, state.tz)}</span> : null}
      </div>
      {error ? (
        <p role="alert" className={styles.liveError} data-testid="live-error">
          {error}
        </p>
      ) : null}
      {rows.length ? (
        <ResultsGrid columns={columns} fields={fields} rows={rows} path={path} state={state} firstRow={1} sortColumns={[]} />
      ) : (
        <EmptyState>{lastPoll ? 'No rows in the last hour match yet; new ones will appear here.' : 'Reading the newest rows…'}</EmptyState>
      )}
    </section>
  )
}

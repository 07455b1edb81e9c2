'use client'

import { useRouter } from 'next/navigation'
import { useId, useState } from 'react'
import {
  describeCondition,
  DESTINATION_FORMATS,
  MAX_CONSECUTIVE_WINDOWS,
  MAX_DESTINATIONS,
  MAX_WINDOW_MINUTES,
  METRIC_LABELS,
  METRICS,
  MIN_WINDOW_MINUTES,
  NEW_PATTERN_DAYS,
  OPS,
  type Condition,
  type Destination,
  type Metric,
} from '@/lib/saved-views/condition'
import { apiError } from './save-view-client'
import styles from './query.module.css'

// The alert condition of one saved view (PUT /query/api/saved/{id}/condition): row count or error
// rate over a window, above or below a threshold. An error rate is typed as a percentage and sent
// as a share (5 → 0.05). The alerts job evaluates it every few minutes and notifies the webhook,
// or the alert's own destinations (one per line: a URL, then optionally json or slack). "Send a
// test notification" (POST …/test-notification) sends a message marked as a test the same way and
// says whether each destination took it.
export function ConditionEditor({
  api,
  testApi,
  name,
  condition,
  errorRate,
  textColumns,
}: {
  api: string
  testApi: string
  name: string
  condition: Condition | null
  errorRate: boolean
  /** The view's text columns: a "new patterns" alert looks at one of them. */
  textColumns: string[]
}) {
  const router = useRouter()
  const id = useId()
  const [editing, setEditing] = useState(false)
  const [metric, setMetric] = useState<Metric>(condition?.metric ?? 'count')
  // 0: a fixed threshold; N: a departure from the same window of the last N days.
  const [compareDays, setCompareDays] = useState(condition?.compareDays ?? 0)
  const [message, setMessage] = useState('')
  const [testing, setTesting] = useState(false)

  async function sendTest() {
    setTesting(true)
    setMessage('Sending a test notification…')
    const res = await fetch(testApi, { method: 'POST' }).catch(() => null)
    setTesting(false)
    if (!res) return setMessage('The server could not be reached.')
    if (!res.ok) return setMessage(`Test notification not sent: ${await apiError(res)}`)
    const body = (await res.json()) as { message: string }
    setMessage(`Test notification: ${body.message}`)
  }

  async function send(next: Condition | null, done: string) {
    const res = await fetch(api, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ condition: next }) }).catch(
      () => null,
    )
    if (!res) return setMessage('The server could not be reached.')
    if (!res.ok) return setMessage(await apiError(res))
    setMessage(done)
    setEditing(false)
    router.refresh()
  }

  // Shown as typed: a percentage for an error rate or a departure, rows for a count.
  const patterns = metric === 'new_patterns'
  const threshold = condition
    ? condition.metric !== 'new_patterns' && (condition.metric === 'error_rate' || condition.compareDays)
      ? condition.threshold * 100
      : condition.threshold
    : undefined
  const asPercent = !patterns && (metric === 'error_rate' || compareDays > 0)
  return (
    <div className={styles.listActions}>
      <span data-testid="condition">{condition ? describeCondition(condition) : 'No alert'}</span>
      {condition?.destinations.length ? (
        <span className={styles.hint} data-testid="destinations">
          to {condition.destinations.map((d) => hostOf(d.url)).join(', ')}
        </span>
      ) : null}
      {editing ? (
        <form
          className={styles.listActions}
          aria-label={`Alert condition of ${name}`}
          onSubmit={(e) => {
            e.preventDefault()
            const form = new FormData(e.currentTarget)
            const value = Number(form.get('threshold'))
            const next = {
              metric,
              op: String(form.get('op')) as Condition['op'],
              threshold: asPercent ? value / 100 : value,
              ...(compareDays > 0 ? { compareDays } : {}),
              ...(patterns ? { patternColumn: String(form.get('patternColumn')) } : {}),
              windowMinutes: Number(form.get('window')),
              consecutiveWindows: Number(form.get('consecutive')),
              destinations: parseDestinations(String(form.get('destinations') ?? '')),
            }
            void send(next, 'Alert condition saved.')
          }}
        >
          <label htmlFor={`${id}-metric`}>Alert when</label>
          <select id={`${id}-metric`} name="metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
            {METRICS.filter((m) => (m !== 'error_rate' || errorRate) && (m !== 'new_patterns' || textColumns.length)).map((m) => (
              <option key={m} value={m}>
                {METRIC_LABELS[m].toLowerCase()}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-op`} className={styles.srOnly}>
            Direction
          </label>
          {patterns ? (
            <>
              <label htmlFor={`${id}-pattern-column`}>of</label>
              <select id={`${id}-pattern-column`} name="patternColumn" defaultValue={condition?.patternColumn ?? textColumns[0]}>
                {textColumns.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </>
          ) : null}
          <select id={`${id}-op`} name="op" defaultValue={condition?.op ?? 'above'}>
            {OPS.filter((o) => !patterns || o === 'above').map((o) => (
              <option key={o} value={o}>
                is {o}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-compare`}>{patterns ? 'Not seen in' : 'Compared with'}</label>
          <select id={`${id}-compare`} name="compare" value={compareDays} onChange={(e) => setCompareDays(Number(e.target.value))}>
            <option value={0}>{patterns ? `the ${NEW_PATTERN_DAYS} days before` : 'a fixed threshold'}</option>
            {[...new Set([1, 3, 7, ...(condition?.compareDays ? [condition.compareDays] : [])])]
              .sort((a, b) => a - b)
              .map((d) => (
                <option key={d} value={d}>
                  {patterns
                    ? `the ${d} day${d === 1 ? '' : 's'} before`
                    : d === 1
                      ? 'the same window the day before'
                      : `the same window of the last ${d} days (median)`}
                </option>
              ))}
          </select>
          <label htmlFor={`${id}-threshold`}>
            {patterns ? 'More than (templates)' : compareDays > 0 ? 'By (%)' : metric === 'error_rate' ? 'Threshold (%)' : 'Threshold (rows)'}
          </label>
          <input
            id={`${id}-threshold`}
            name="threshold"
            type="number"
            required
            min={0}
            max={patterns ? undefined : compareDays > 0 ? 1000 : metric === 'error_rate' ? 100 : undefined}
            step="any"
            defaultValue={threshold}
            inputMode="decimal"
          />
          <label htmlFor={`${id}-window`}>Over the last (minutes)</label>
          <input
            id={`${id}-window`}
            name="window"
            type="number"
            required
            min={MIN_WINDOW_MINUTES}
            max={MAX_WINDOW_MINUTES}
            step={1}
            defaultValue={condition?.windowMinutes ?? 15}
          />
          <label htmlFor={`${id}-consecutive`}>Consecutive windows</label>
          <input
            id={`${id}-consecutive`}
            name="consecutive"
            type="number"
            required
            min={1}
            max={MAX_CONSECUTIVE_WINDOWS}
            step={1}
            defaultValue={condition?.consecutiveWindows ?? 1}
            aria-describedby={`${id}-consecutive-hint`}
          />
          <span id={`${id}-consecutive-hint`} className={styles.hint}>
            Fires only when it held in each of the last N windows.
          </span>
          <label htmlFor={`${id}-destinations`}>Destinations</label>
          <textarea
            id={`${id}-destinations`}
            name="destinations"
            rows={2}
            cols={40}
            defaultValue={(condition?.destinations ?? []).map((d) => (d.format === 'auto' ? d.url : `${d.url} ${d.format}`)).join('\n')}
            aria-describedby={`${id}-destinations-hint`}
          />
          <span id={`${id}-destinations-hint`} className={styles.hint}>
            One per line, up to {MAX_DESTINATIONS}: an https URL, then optionally {DESTINATION_FORMATS.filter((f) => f !== 'auto').join(' or ')}. Empty: the
            team’s webhook.
          </span>
          <button type="submit">Save alert</button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" onClick={() => setEditing(true)} aria-label={`${condition ? 'Change' : 'Set'} the alert of ${name}`}>
          {condition ? 'Change alert' : 'Set alert'}
        </button>
      )}
      {condition && !editing ? (
        <button type="button" onClick={() => void send(null, 'Alert removed.')} aria-label={`Remove the alert of ${name}`}>
          Remove alert
        </button>
      ) : null}
      {condition && !editing ? (
        <button type="button" disabled={testing} onClick={() => void sendTest()} aria-label={`Send a test notification for ${name}`}>
          Send a test notification
        </button>
      ) : null}
      <span role="status" className={styles.hint}>
        {message}
      </span>
    </div>
  )
}

/** `https://a.example/hook slack` per line → destinations; the server checks each URL and format. */
function parseDestinations(text: string): Destination[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [url, format] = line.split(/\s+/)
      return { url, format: (format ?? 'auto') as Destination['format'] }
    })
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

'use client'

import { useRouter } from 'next/navigation'
import { useId, useState } from 'react'
import {
  describeCondition,
  MAX_WINDOW_MINUTES,
  METRIC_LABELS,
  METRICS,
  MIN_WINDOW_MINUTES,
  OPS,
  type Condition,
  type Metric,
} from '@/lib/saved-views/condition'
import { apiError } from './save-view-client'
import styles from './query.module.css'

// The alert condition of one saved view (PUT /query/api/saved/{id}/condition): row count or error
// rate over a window, above or below a threshold. An error rate is typed as a percentage and sent
// as a share (5 → 0.05). The alerts job evaluates it every few minutes and notifies the webhook.
export function ConditionEditor({ api, name, condition, errorRate }: { api: string; name: string; condition: Condition | null; errorRate: boolean }) {
  const router = useRouter()
  const id = useId()
  const [editing, setEditing] = useState(false)
  const [metric, setMetric] = useState<Metric>(condition?.metric ?? 'count')
  const [message, setMessage] = useState('')

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

  const threshold = condition ? (condition.metric === 'error_rate' ? condition.threshold * 100 : condition.threshold) : undefined
  return (
    <div className={styles.listActions}>
      <span data-testid="condition">{condition ? describeCondition(condition) : 'No alert'}</span>
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
              threshold: metric === 'error_rate' ? value / 100 : value,
              windowMinutes: Number(form.get('window')),
            }
            void send(next, 'Alert condition saved.')
          }}
        >
          <label htmlFor={`${id}-metric`}>Alert when</label>
          <select id={`${id}-metric`} name="metric" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
            {METRICS.filter((m) => m !== 'error_rate' || errorRate).map((m) => (
              <option key={m} value={m}>
                {METRIC_LABELS[m].toLowerCase()}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-op`} className={styles.srOnly}>
            Direction
          </label>
          <select id={`${id}-op`} name="op" defaultValue={condition?.op ?? 'above'}>
            {OPS.map((o) => (
              <option key={o} value={o}>
                is {o}
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-threshold`}>{metric === 'error_rate' ? 'Threshold (%)' : 'Threshold (rows)'}</label>
          <input
            id={`${id}-threshold`}
            name="threshold"
            type="number"
            required
            min={0}
            max={metric === 'error_rate' ? 100 : undefined}
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
      <span role="status" className={styles.hint}>
        {message}
      </span>
    </div>
  )
}

'use client'

import { useState } from 'react'
import { formatWallTime, UTC } from '@/lib/view/time'
import { RANGE_PRESETS, resolveViewRange, type RangeId } from '@/lib/view/view-state'
import styles from './query.module.css'

interface RangeFieldsProps {
  range: RangeId
  /** What the fields show first: the typed custom bounds, or the bounds the preset resolved to. */
  from: string
  to: string
  tz: string
}

// Range, From and To, kept honest: typing a date switches the range to Custom, picking a preset
// shows the bounds it stands for, and From/To are only submitted for a custom range, so the URL
// and the form never show dates the query does not use.
export function RangeFields({ range: initialRange, from: initialFrom, to: initialTo, tz }: RangeFieldsProps) {
  const [range, setRange] = useState<RangeId>(initialRange)
  const [from, setFrom] = useState(initialFrom)
  const [to, setTo] = useState(initialTo)
  const zone = tz === UTC ? 'UTC' : tz
  const custom = range === 'custom'

  function pick(next: RangeId) {
    setRange(next)
    if (next === 'custom') return
    const bounds = resolveViewRange({ range: next, from: '', to: '', tz }, new Date())
    setFrom(formatWallTime(Date.parse(bounds.dateFrom), tz))
    setTo(formatWallTime(Date.parse(bounds.dateTo), tz))
  }

  const typed = (set: (v: string) => void) => (e: React.ChangeEvent<HTMLInputElement>) => {
    set(e.target.value)
    setRange('custom')
  }

  return (
    <>
      <label>
        Range
        <select name="range" value={range} onChange={(e) => pick(e.target.value as RangeId)}>
          {Object.entries(RANGE_PRESETS).map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        From ({zone})
        <input
          className={styles.time}
          name={custom ? 'from' : undefined}
          value={from}
          onChange={typed(setFrom)}
          placeholder="2026-11-21 13:00"
          spellCheck={false}
          autoComplete="off"
          aria-describedby="range-hint"
        />
      </label>
      <label>
        To ({zone})
        <input
          className={styles.time}
          name={custom ? 'to' : undefined}
          value={to}
          onChange={typed(setTo)}
          placeholder="2026-11-21 14:00"
          spellCheck={false}
          autoComplete="off"
          aria-describedby="range-hint"
        />
      </label>
      <span id="range-hint" hidden>
        A date, or a date and time such as 2026-11-21 13:00, or a time relative to now such as now-15m, now-2h or now-7d (To: now); typing one switches the
        range to Custom. A date alone as To includes that whole day.
      </span>
    </>
  )
}

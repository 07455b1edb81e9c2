'use client'

import { useRouter } from 'next/navigation'
import { useState } from 'react'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

// Show or hide columns (the sessions dataset has 40). The choice goes into the URL as cols=…,
// so it is shared, saved and exported with the rest of the view.
export function ColumnPicker({ path, state, columns }: { path: string; state: ViewState; columns: string[] }) {
  const router = useRouter()
  const initial = state.columns.length ? state.columns : columns
  const [picked, setPicked] = useState<Set<string>>(() => new Set(initial))

  function toggle(name: string, on: boolean) {
    const next = new Set(picked)
    if (on) next.add(name)
    else next.delete(name)
    setPicked(next)
  }

  function apply(e: React.FormEvent) {
    e.preventDefault()
    const chosen = columns.filter((c) => picked.has(c))
    router.push(viewHref(path, state, { columns: chosen.length === columns.length ? [] : chosen }))
  }

  return (
    <details className={styles.picker}>
      <summary>
        Columns: {initial.length} of {columns.length} shown
      </summary>
      <form className={styles.pickerBody} onSubmit={apply} aria-label="Columns to show">
        <div className={styles.pickerList}>
          {columns.map((c) => (
            <label key={c}>
              <input type="checkbox" checked={picked.has(c)} onChange={(e) => toggle(c, e.target.checked)} />
              {c}
            </label>
          ))}
        </div>
        <div className={styles.pickerActions}>
          <button type="button" className={styles.button} onClick={() => setPicked(new Set(columns))}>
            All
          </button>
          <button type="button" className={styles.button} onClick={() => setPicked(new Set())}>
            None
          </button>
          <button
            type="submit"
            className={`${styles.button} ${styles.primary}`}
            disabled={picked.size === 0}
            title={picked.size === 0 ? 'Pick at least one column' : undefined}
          >
            Show {picked.size} column{picked.size === 1 ? '' : 's'}
          </button>
        </div>
      </form>
    </details>
  )
}

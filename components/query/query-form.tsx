import Form from 'next/form'
import { DATASETS } from '@/lib/query/datasets'
import { PAGE_SIZES, RANGE_PRESETS, resolveViewRange, toInputValue, type ViewState } from '@/lib/query/view-state'
import styles from './query.module.css'

// A GET form: submitting navigates to the URL of the new state (next/form makes that a client
// navigation). Custom from/to start at the bounds the current range resolves to.
export function QueryForm({ action, state, withLimit }: { action: string; state: ViewState; withLimit: boolean }) {
  const resolved = resolveViewRange(state)
  const columns = DATASETS[state.dataset].columns.map((c) => c.name)
  return (
    <Form action={action} className={styles.form} aria-label="Query">
      <input type="hidden" name="dataset" value={state.dataset} />
      <label>
        Range
        <select name="range" defaultValue={state.range}>
          {Object.entries(RANGE_PRESETS).map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        From (UTC, custom)
        <input type="datetime-local" name="from" defaultValue={toInputValue(resolved.dateFrom)} />
      </label>
      <label>
        To (UTC, custom)
        <input type="datetime-local" name="to" defaultValue={toInputValue(resolved.dateTo, true)} />
      </label>
      {withLimit ? (
        <label>
          Rows per page
          <select name="limit" defaultValue={String(state.limit)}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <button type="submit">Run</button>
      <label className={styles.filter}>
        Filter (SQL WHERE fragment)
        <textarea name="filter" defaultValue={state.filter} placeholder={`e.g. ${DATASETS[state.dataset].quickFilters[0]?.filter ?? ''}`} spellCheck={false} />
        <span className={styles.hint}>
          Columns: {columns.join(', ')}. Comparisons, LIKE/ILIKE, IN, IS [NOT] NULL, BETWEEN, AND/OR/NOT, casts and lower/upper/length/coalesce….
        </span>
      </label>
    </Form>
  )
}

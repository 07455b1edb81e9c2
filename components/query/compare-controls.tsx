import Form from 'next/form'
import { COMPARE_MODES, COMPARE_MODE_IDS, splitColumns } from '@/lib/view/compare'
import { viewQuery, type ViewState } from '@/lib/view/view-state'
import styles from './compare.module.css'

// "Compare with" and "Split by" for the time charts: a GET form like the query form, so the choice
// lands in the URL (`compare=…`, `split=…`) with the rest of the page's state carried as hidden fields.
export function CompareControls({ action, state }: { action: string; state: ViewState }) {
  const rest = [...new URLSearchParams(viewQuery({ ...state, compare: undefined, split: undefined, offset: 0, cursor: '' })).entries()]
  return (
    <Form action={action} className={styles.controls} aria-label="Compare and split" data-testid="compare-controls">
      {rest.map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <label>
        Compare with
        <select name="compare" defaultValue={state.compare ?? ''} data-testid="compare-select">
          <option value="">Nothing</option>
          {COMPARE_MODE_IDS.map((m) => (
            <option key={m} value={m}>
              {COMPARE_MODES[m]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Split by
        <select name="split" defaultValue={state.split ?? ''} data-testid="split-select">
          <option value="">Nothing</option>
          {splitColumns(state.dataset).map((c) => (
            <option key={c.name} value={c.name}>
              {c.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Apply</button>
    </Form>
  )
}

'use client'

import { useId, useRef, useState } from 'react'
import { completionsAt, type Completion, type ColumnHint, type Option, type Value, type ValueHints } from '@/lib/view/filter-completion'
import styles from './query.module.css'

/** Where the filter box asks for the top values of the page's range (POST /query/api/facets). */
export interface ValuesSource {
  api: string
  body: { dataset: string; dateFrom: string; dateTo: string }
}

// The filter box: column names complete as you type, and after `column = ` the column's most
// frequent values in the page's range (arrow keys, Enter or Tab to take one, Escape to close);
// Ctrl+Enter (⌘+Enter) runs the query. A plain textarea with a listbox beside it, wired up with
// aria-activedescendant, rather than an editor. The values are asked for once, when the box is first
// focused, from the facets of the range (the rollup's columns; exact or from the newest rows).
export function FilterBox({
  defaultValue,
  placeholder,
  columns,
  valuesSource,
}: {
  defaultValue: string
  placeholder: string
  columns: ColumnHint[]
  valuesSource?: ValuesSource
}) {
  const ref = useRef<HTMLTextAreaElement>(null)
  const listId = useId()
  const [completion, setCompletion] = useState<Completion | null>(null)
  const [active, setActive] = useState(0)
  const values = useRef<ValueHints>({})
  const asked = useRef(false)

  function loadValues() {
    if (!valuesSource || asked.current) return
    asked.current = true
    fetch(valuesSource.api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...valuesSource.body, values: 20 }) })
      .then((res) => (res.ok ? res.json() : null))
      .then((result: { facets: Array<{ column: string; values: Array<{ value: Value; count: number }> }> } | null) => {
        if (!result) return
        values.current = Object.fromEntries(result.facets.map((f) => [f.column, f.values]))
        if (document.activeElement === ref.current) refresh()
      })
      .catch(() => {}) // completion is a help: without values the box still takes any filter
  }

  function refresh() {
    const el = ref.current
    if (!el) return
    setCompletion(el.selectionStart === el.selectionEnd ? completionsAt(el.value, el.selectionStart, columns, values.current) : null)
    setActive(0)
  }

  function accept(option: Option) {
    const el = ref.current
    if (!el || !completion) return
    el.setRangeText(option.insert, completion.start, completion.end, 'end')
    setCompletion(null)
    el.focus()
  }

  function onKeyDown(e: React.KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      e.currentTarget.form?.requestSubmit()
      return
    }
    if (!completion) return
    const n = completion.options.length
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : n - 1)) % n)
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault()
      accept(completion.options[active])
    } else if (e.key === 'Escape') {
      e.preventDefault()
      setCompletion(null)
    }
  }

  const open = completion !== null
  return (
    <div className={styles.filter}>
      <label htmlFor={`${listId}-input`}>Filter (SQL WHERE fragment)</label>
      <div className={styles.filterInput}>
        <textarea
          ref={ref}
          id={`${listId}-input`}
          name="filter"
          defaultValue={defaultValue}
          placeholder={placeholder}
          spellCheck={false}
          autoComplete="off"
          aria-autocomplete="list"
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open ? `${listId}-${active}` : undefined}
          aria-describedby={`${listId}-hint`}
          onInput={refresh}
          onClick={refresh}
          onKeyDown={onKeyDown}
          onKeyUp={(e) => (e.key === 'ArrowLeft' || e.key === 'ArrowRight' || e.key === 'Home' || e.key === 'End' ? refresh() : undefined)}
          onFocus={loadValues}
          onBlur={() => setCompletion(null)}
        />
        {open ? (
          <ul className={styles.suggestions} id={listId} role="listbox" aria-label={completion.of === 'columns' ? 'Columns' : `Values of ${completion.of}`}>
            {completion.options.map((o, i) => (
              <li
                key={o.label}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => {
                  e.preventDefault() // keep the caret in the textarea
                  accept(o)
                }}
              >
                {o.label}
                <span>{o.note}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <span id={`${listId}-hint`} className={styles.hint}>
        Column names, and after <code>column =</code> its frequent values, complete as you type (↑ ↓, Enter or Tab). <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs the
        query. Comparisons, LIKE/ILIKE, IN, IS [NOT] NULL, BETWEEN, AND/OR/NOT, casts and a few functions are allowed.
      </span>
      <span aria-live="polite" className={styles.srOnly}>
        {open ? `${completion.options.length} ${completion.of === 'columns' ? 'column' : 'value'}${completion.options.length > 1 ? 's' : ''} suggested` : ''}
      </span>
    </div>
  )
}

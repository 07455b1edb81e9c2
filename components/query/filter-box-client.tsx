'use client'

import { useId, useRef, useState } from 'react'
import styles from './query.module.css'

export interface ColumnHint {
  name: string
  type: string
}

const MAX_SUGGESTIONS = 8
const WORD_BEFORE_CARET = /[A-Za-z_][A-Za-z0-9_]*$/

interface Completion {
  start: number
  end: number
  options: ColumnHint[]
}

/** Columns that complete the word being typed at the caret (outside quoted text). */
export function completionsAt(text: string, caret: number, columns: ColumnHint[]): Completion | null {
  const before = text.slice(0, caret)
  // Inside a string literal: an odd number of quotes before the caret.
  if ((before.match(/'/g)?.length ?? 0) % 2 === 1) return null
  const word = WORD_BEFORE_CARET.exec(before)?.[0]
  if (!word) return null
  const end = caret + (/^[A-Za-z0-9_]*/.exec(text.slice(caret))?.[0].length ?? 0)
  const lower = word.toLowerCase()
  const starts = columns.filter((c) => c.name.startsWith(lower))
  const contains = columns.filter((c) => !c.name.startsWith(lower) && c.name.includes(lower))
  const options = [...starts, ...contains].filter((c) => c.name !== text.slice(caret - word.length, end)).slice(0, MAX_SUGGESTIONS)
  return options.length ? { start: caret - word.length, end, options } : null
}

// The filter box: column names complete as you type (arrow keys, Enter or Tab to take one, Escape
// to close), and Ctrl+Enter (⌘+Enter) runs the query. A plain textarea with a listbox beside it,
// wired up with aria-activedescendant, rather than an editor.
export function FilterBox({ defaultValue, placeholder, columns }: { defaultValue: string; placeholder: string; columns: ColumnHint[] }) {
  const ref = useRef<HTMLTextAreaElement>(null)
  const listId = useId()
  const [completion, setCompletion] = useState<Completion | null>(null)
  const [active, setActive] = useState(0)

  function refresh() {
    const el = ref.current
    if (!el) return
    setCompletion(el.selectionStart === el.selectionEnd ? completionsAt(el.value, el.selectionStart, columns) : null)
    setActive(0)
  }

  function accept(option: ColumnHint) {
    const el = ref.current
    if (!el || !completion) return
    el.setRangeText(option.name, completion.start, completion.end, 'end')
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
          onBlur={() => setCompletion(null)}
        />
        {open ? (
          <ul className={styles.suggestions} id={listId} role="listbox" aria-label="Columns">
            {completion.options.map((o, i) => (
              <li
                key={o.name}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => {
                  e.preventDefault() // keep the caret in the textarea
                  accept(o)
                }}
              >
                {o.name}
                <span>{o.type}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <span id={`${listId}-hint`} className={styles.hint}>
        Column names complete as you type (↑ ↓, Enter or Tab). <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs the query. Comparisons, LIKE/ILIKE, IN, IS [NOT] NULL,
        BETWEEN, AND/OR/NOT, casts and a few functions are allowed.
      </span>
      <span aria-live="polite" className={styles.srOnly}>
        {open ? `${completion.options.length} column${completion.options.length > 1 ? 's' : ''} suggested` : ''}
      </span>
    </div>
  )
}

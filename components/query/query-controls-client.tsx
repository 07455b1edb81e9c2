'use client'

import { useEffect, useId, useState, type ReactNode } from 'react'
import styles from './query.module.css'

// Where the focus was when the query was submitted: the form is rebuilt for the new state, so
// without this the focus would drop to the top of the page. Module state: it outlives the form.
let submittedFrom: { field: string | null } | null = null

const NARROW = '(max-width: 40rem)'

/**
 * The dataset picker, form, quick filters and save form of a query page. After a run the focus
 * goes back to the field it was in (the filter, after Ctrl+Enter) or, from the Run button, to the
 * results. On a phone the controls collapse once a query has run (or the link carries one), behind
 * a button that says what is queried, so the results come first.
 */
export function QueryControls({
  runKey,
  summary,
  collapsed: initiallyCollapsed,
  children,
}: {
  runKey: string
  summary: string
  collapsed: boolean
  children: ReactNode
}) {
  const [collapsed, setCollapsed] = useState(initiallyCollapsed)
  const id = useId()

  useEffect(() => {
    const from = submittedFrom
    submittedFrom = null
    if (!from) return
    const narrow = window.matchMedia(NARROW).matches
    const field = !narrow && from.field ? document.querySelector<HTMLElement>(`form[aria-label="Query"] [name="${CSS.escape(from.field)}"]`) : null
    ;(field ?? document.getElementById('results'))?.focus({ preventScroll: !narrow && field !== null })
    if (narrow) document.getElementById('results')?.scrollIntoView({ block: 'start' })
  }, [runKey])

  function onSubmit(e: React.FormEvent<HTMLDivElement>) {
    const form = e.target as HTMLFormElement
    if (form.getAttribute('aria-label') !== 'Query') return
    const active = document.activeElement as HTMLElement | null
    const field = active && form.contains(active) && active.getAttribute('name') && active.tagName !== 'BUTTON' ? active.getAttribute('name') : null
    submittedFrom = { field }
    // On a phone the results come first at once (a run of the same state does not rebuild the form).
    if (window.matchMedia(NARROW).matches) {
      setCollapsed(true)
      const results = document.getElementById('results')
      results?.focus({ preventScroll: true })
      results?.scrollIntoView({ block: 'start' })
    }
  }

  // A quick filter is a link, not a submit: on a phone it too closes the form and brings the results up.
  function onClick(e: React.MouseEvent<HTMLDivElement>) {
    const link = (e.target as HTMLElement).closest('a')
    if (!link?.closest('[aria-label="Quick filters"]') || !window.matchMedia(NARROW).matches) return
    submittedFrom = { field: null }
    setCollapsed(true)
  }

  return (
    <>
      <button
        type="button"
        className={styles.controlsToggle}
        aria-expanded={!collapsed}
        aria-controls={id}
        onClick={() => setCollapsed(!collapsed)}
        data-testid="controls-toggle"
      >
        {collapsed ? 'Edit the query' : 'Hide the query form'} <span className={styles.hint}>{summary}</span>
      </button>
      <div id={id} className={styles.controls} data-collapsed={collapsed} onSubmitCapture={onSubmit} onClickCapture={onClick}>
        {children}
      </div>
    </>
  )
}

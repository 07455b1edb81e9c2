'use client'

import Link from 'next/link'
import { useState } from 'react'
import styles from './query.module.css'

type Outcome = { ok: true; name: string } | { ok: false; message: string } | null

/** The error message of a /query/api answer, or a generic one. */
export async function apiError(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null
  return body?.error?.message ?? `The server answered ${res.status}.`
}

// Names and saves the view on screen (POST /query/api/saved) for the signed-in identity; saving
// under an existing name replaces that view.
export function SaveView({
  api,
  page,
  view,
  savedHref,
  pinnedView,
}: {
  api: string
  page: 'rows' | 'dashboard'
  view: string
  savedHref: string
  pinnedView?: { view: string; label: string }
}) {
  const [outcome, setOutcome] = useState<Outcome>(null)
  const [busy, setBusy] = useState(false)

  async function save(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault()
    const form = new FormData(e.currentTarget)
    const name = String(form.get('name') ?? '').trim()
    // Pinned: the absolute window on screen instead of the relative range.
    const saved = pinnedView && form.get('pin') === 'on' ? pinnedView.view : view
    setBusy(true)
    try {
      const res = await fetch(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, page, view: saved }) })
      setOutcome(res.ok ? { ok: true, name } : { ok: false, message: await apiError(res) })
    } catch {
      setOutcome({ ok: false, message: 'The server could not be reached.' })
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className={styles.save} onSubmit={save} aria-label="Save this view">
      <label>
        <span className={styles.srOnly}>Name of the saved view</span>
        <input name="name" required maxLength={100} placeholder="Name this view" />
      </label>
      {pinnedView ? (
        <label className={styles.pin}>
          <input type="checkbox" name="pin" /> Pin this exact window ({pinnedView.label})
        </label>
      ) : null}
      <button type="submit" disabled={busy}>
        Save view
      </button>
      <span role="status">
        {outcome?.ok ? (
          <>
            Saved as “{outcome.name}”. <Link href={savedHref}>Your saved views</Link>
          </>
        ) : outcome ? (
          <span className={styles.errorText}>{outcome.message}</span>
        ) : null}
      </span>
    </form>
  )
}

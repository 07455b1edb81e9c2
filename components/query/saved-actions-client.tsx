'use client'

import { useRouter } from 'next/navigation'
import { useState } from 'react'
import { apiError } from './save-view-client'
import styles from './query.module.css'

// Copy the share link, rename or delete one of your saved views (PATCH/DELETE /query/api/saved/{id}).
export function SavedActions({ api, name, shareHref }: { api: string; name: string; shareHref: string }) {
  const router = useRouter()
  const [renaming, setRenaming] = useState(false)
  const [message, setMessage] = useState('')

  async function send(init: RequestInit, done: string) {
    const res = await fetch(api, init).catch(() => null)
    if (!res) return setMessage('The server could not be reached.')
    if (!res.ok) return setMessage(await apiError(res))
    setMessage(done)
    setRenaming(false)
    router.refresh()
  }

  async function copyLink() {
    await navigator.clipboard.writeText(new URL(shareHref, window.location.href).toString())
    setMessage('Link copied.')
  }

  return (
    <div className={styles.listActions}>
      <button type="button" onClick={copyLink} aria-label={`Copy link to ${name}`}>
        Copy link
      </button>
      {renaming ? (
        <form
          className={styles.listActions}
          onSubmit={(e) => {
            e.preventDefault()
            const next = String(new FormData(e.currentTarget).get('name') ?? '').trim()
            void send({ method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: next }) }, `Renamed to “${next}”.`)
          }}
        >
          <label>
            <span className={styles.srOnly}>New name for {name}</span>
            <input name="name" defaultValue={name} required maxLength={100} autoFocus />
          </label>
          <button type="submit">Save name</button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${name}`}>
          Rename
        </button>
      )}
      <button
        type="button"
        onClick={() => confirm(`Delete the saved view “${name}”?`) && void send({ method: 'DELETE' }, 'Deleted.')}
        aria-label={`Delete ${name}`}
      >
        Delete
      </button>
      <span role="status" className={styles.hint}>
        {message}
      </span>
    </div>
  )
}

'use client'

import Link from 'next/link'
import { useState } from 'react'
import styles from './query.module.css'

// "Copy link to this exact window": the page's URL with the range pinned to absolute from/to, so
// a colleague opening it later sees the same rows (a relative range would have moved on). The
// link itself can be opened, copied from the context menu or bookmarked; the button copies it.
// Beside it, "Zoom out": the same page over a range twice as long.
export function ExactWindowLink({ href, label, zoomOutHref }: { href: string; label: string; zoomOutHref: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null)
  async function copy() {
    try {
      await navigator.clipboard.writeText(new URL(href, location.href).toString())
      setCopied('yes')
    } catch {
      setCopied('no')
    }
  }
  return (
    <p className={styles.exactWindow} data-testid="exact-window">
      <a href={href}>Link to this exact window</a> <span className={styles.hint}>({label})</span>{' '}
      <button type="button" className={styles.linkButton} onClick={copy}>
        Copy link
      </button>
      ·{' '}
      <Link href={zoomOutHref} data-testid="zoom-out" title="Twice the range: back twice as far when it ends now, else half its length on each side">
        Zoom out
      </Link>
      <span role="status" className={styles.hint}>
        {copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copying is not allowed here: copy the link instead.' : ''}
      </span>
    </p>
  )
}

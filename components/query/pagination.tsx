import Link from 'next/link'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

// Previous/next links of a page of rows: "Next" follows the keyset cursor (page 500 costs what page
// 1 does) when sorted by time, and steps on by offset when sorted by another column; "Previous"
// steps back by offset.
export function Pagination({
  path,
  state,
  offset,
  limit,
  shown,
  nextCursor,
  more,
}: {
  path: string
  state: ViewState
  offset: number
  limit: number
  shown: number
  nextCursor: string | null
  more: boolean
}) {
  return (
    <nav className={styles.pager} aria-label="Result pages">
      {offset > 0 ? (
        <Link href={viewHref(path, state, { offset: Math.max(0, offset - limit) })}>← Previous</Link>
      ) : (
        <span className={styles.disabled}>← Previous</span>
      )}
      {nextCursor ? (
        <Link href={viewHref(path, state, { offset: offset + shown, cursor: nextCursor })}>Next →</Link>
      ) : more ? (
        <Link href={viewHref(path, state, { offset: offset + shown })}>Next →</Link>
      ) : (
        <span className={styles.disabled}>Next →</span>
      )}
    </nav>
  )
}

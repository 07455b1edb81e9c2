import Link from 'next/link'
import { viewHref, type ViewState } from '@/lib/query/view-state'
import styles from './query.module.css'

// Previous/next links of a page of rows (offset paging).
export function Pagination({ path, state, offset, limit, shown, count }: { path: string; state: ViewState; offset: number; limit: number; shown: number; count: number }) {
  const last = offset + shown
  return (
    <nav className={styles.pager} aria-label="Result pages">
      {offset > 0 ? <Link href={viewHref(path, state, { offset: Math.max(0, offset - limit) })}>← Previous</Link> : <span className={styles.disabled}>← Previous</span>}
      {last < count ? <Link href={viewHref(path, state, { offset: last })}>Next →</Link> : <span className={styles.disabled}>Next →</span>}
    </nav>
  )
}

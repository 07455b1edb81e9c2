import Link from 'next/link'
import type { DatasetDef } from '@/lib/datasets/catalog'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

// The dataset's canned filters as links (each one a shareable URL), and its columns for reference.
export function QuickFilters({ path, state, dataset }: { path: string; state: ViewState; dataset: DatasetDef }) {
  return (
    <>
      <div className={styles.quick} aria-label="Quick filters" role="group">
        <span className={styles.hint}>Quick filters:</span>
        {dataset.quickFilters.map((q) => (
          <Link
            key={q.filter}
            href={viewHref(path, state, { filter: q.filter, offset: 0 })}
            title={q.filter}
            aria-current={q.filter === state.filter ? 'true' : undefined}
          >
            {q.label}
          </Link>
        ))}
        {state.filter ? <Link href={viewHref(path, state, { filter: '', offset: 0 })}>Clear filter</Link> : null}
      </div>
      <details className={styles.columns}>
        <summary>Columns of {dataset.label}</summary>
        <dl>
          {dataset.columns.map((c) => (
            <div key={c.name} style={{ display: 'contents' }}>
              <dt>{c.name}</dt>
              <dd>{c.type}</dd>
              <dd>{c.description}</dd>
            </div>
          ))}
        </dl>
      </details>
    </>
  )
}

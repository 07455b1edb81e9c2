import Link from 'next/link'
import { DATASETS, DATASET_IDS } from '@/lib/datasets/catalog'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

// One link per dataset; switching keeps the range and drops the filter and the column choice,
// which name columns of the dataset being left.
export function DatasetPicker({ path, state }: { path: string; state: ViewState }) {
  return (
    <>
      <nav className={styles.datasets} aria-label="Datasets">
        {DATASET_IDS.map((id) => (
          <Link
            key={id}
            href={viewHref(path, state, { dataset: id, filter: '', offset: 0, columns: [], sort: '', desc: true })}
            aria-current={id === state.dataset ? 'page' : undefined}
          >
            {DATASETS[id].label}
          </Link>
        ))}
      </nav>
      <p className={styles.description}>{DATASETS[state.dataset].description}</p>
    </>
  )
}

import Link from 'next/link'
import { DATASETS } from '@/lib/datasets/catalog'
import type { ContextResult } from '@/lib/query/schemas'
import { formatCount } from '@/lib/view/format'
import { formatTime } from '@/lib/view/time'
import { shownColumns, viewHref, type ViewState } from '@/lib/view/view-state'
import { ResultsGrid } from './results-grid-client'
import { SqlBlock } from './sql-block'
import { EmptyState } from './states'
import styles from './query.module.css'

// Rows in context (`around=` in the URL): the rows just newer and older than one row, that row
// marked, under the page's filter. The range does not apply; "Back to the range" drops `around`.
export function ContextRows({ result, path, state }: { result: ContextResult; path: string; state: ViewState }) {
  const dataset = DATASETS[result.dataset]
  const fields = dataset.columns.map(({ name, type, unit }) => ({ name, type, unit }))
  const shown = new Set(shownColumns(state))
  const at = formatTime(result.at.split('~')[0], state.tz)
  return (
    <section aria-labelledby="context-title" data-testid="context">
      <h2 id="context-title" className={styles.histogramTitle}>
        Rows around the row at {at}
        <span className={styles.hint}>
          {' '}
          · <span data-testid="context-newer">{formatCount(result.newer)}</span> newer and <span data-testid="context-older">{formatCount(result.older)}</span>{' '}
          older{result.filter ? ' matching the filter' : ''} · {result.elapsedMs} ms in the database
        </span>
      </h2>
      <p className={styles.hint}>
        {result.anchor === null ? 'The row itself is not shown: it no longer exists or does not match this filter. ' : 'The row itself is marked. '}
        <Link href={viewHref(path, state, { around: undefined, offset: 0 })} data-testid="context-back">
          Back to the range
        </Link>
      </p>
      {result.rows.length === 0 ? (
        <EmptyState>
          No rows around it match this filter within {formatTime(result.window.from, state.tz)} → {formatTime(result.window.to, state.tz)}.
        </EmptyState>
      ) : (
        <ResultsGrid
          columns={fields.filter((c) => shown.has(c.name))}
          fields={fields}
          rows={result.rows}
          keys={result.keys}
          current={result.anchor}
          path={path}
          state={state}
          firstRow={1}
          sortColumns={[]}
        />
      )}
      {result.filter ? (
        <p className={styles.hint}>
          Filter as run (regenerated from its parse tree): <code>{result.filter}</code>
        </p>
      ) : null}
      <SqlBlock label="SQL (newer rows)" statement={result.sql[0]} />
      <SqlBlock label="SQL (the row and older rows)" statement={result.sql[1]} />
    </section>
  )
}

import Link from 'next/link'
import { DATASETS } from '@/lib/datasets/catalog'
import { formatCount } from '@/lib/view/format'
import type { QueryResult } from '@/lib/query/schemas'
import { formatTime } from '@/lib/view/time'
import { shownColumns, viewHref, type ViewState } from '@/lib/view/view-state'
import { ColumnPicker } from './column-picker-client'
import { ExportLinks } from './export-links'
import { Pagination } from './pagination'
import { ResultsGrid } from './results-grid-client'
import { SqlBlock } from './sql-block'
import { EmptyState } from './states'
import styles from './query.module.css'

interface ResultsTableProps {
  result: QueryResult
  path: string
  state: ViewState
  /** The export URL of this state, without `format`. */
  exportHref: string
  exportMaxRows: number
}

// One page of rows with its count, paging links, column choice, export and the SQL that produced it.
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 })

/** An exact count in full; an estimate as “about 3.2 M”. */
function countText(result: QueryResult): string {
  return result.countExact ? formatCount(result.count) : `about ${compact.format(result.count).replace(/(\d)([KMB])$/, '$1 $2')}`
}

export function ResultsTable({ result, path, state, exportHref, exportMaxRows }: ResultsTableProps) {
  const dataset = DATASETS[result.dataset]
  const fields = dataset.columns.map(({ name, type, unit }) => ({ name, type, unit }))
  const shown = new Set(shownColumns(state))
  const first = result.rows.length ? result.offset + 1 : 0
  const last = result.offset + result.rows.length
  return (
    <section aria-label="Results">
      <div className={styles.summary}>
        <span data-testid="row-count">
          {result.rows.length ? `Rows ${formatCount(first)}–${formatCount(last)} of ${countText(result)}` : `${countText(result)} matching rows`}
        </span>
        {result.countExact ? null : (
          <span className={styles.hint} data-testid="count-estimate">
            (an estimate: too many rows to count exactly)
          </span>
        )}
        <span data-testid="elapsed">{result.elapsedMs} ms in the database</span>
        <span className={styles.hint} data-testid="range">
          {formatTime(result.range.from, state.tz)} → {formatTime(result.range.to, state.tz)}
        </span>
        <Pagination
          path={path}
          state={state}
          offset={result.offset}
          limit={result.limit}
          shown={result.rows.length}
          nextCursor={result.nextCursor}
          more={result.rows.length === result.limit && !(result.countExact && result.offset + result.rows.length >= result.count)}
        />
      </div>
      <div className={styles.tools}>
        <ColumnPicker path={path} state={state} columns={dataset.columns.map((c) => c.name)} />
        <Link href={viewHref(path, state, { live: true, offset: 0 })} data-testid="live-link" title="Show rows of this filter as they are written">
          Live tail
        </Link>
        <ExportLinks
          href={exportHref}
          count={result.count}
          countText={countText(result)}
          maxRows={exportMaxRows}
          columns={shown.size}
          allColumns={dataset.columns.length}
        />
      </div>
      {result.rows.length === 0 ? (
        <EmptyState>{result.count ? 'No rows on this page: go back to an earlier page.' : 'No rows match this range and filter.'}</EmptyState>
      ) : (
        <ResultsGrid
          columns={fields.filter((c) => shown.has(c.name))}
          fields={fields}
          rows={result.rows}
          keys={result.keys}
          path={path}
          state={state}
          firstRow={first}
          sortColumns={dataset.sortColumns}
        />
      )}
      {result.filter ? (
        <p className={styles.hint}>
          Filter as run (regenerated from its parse tree): <code>{result.filter}</code>
        </p>
      ) : null}
      <SqlBlock label="SQL" statement={result.sql} />
      <SqlBlock label="Count" statement={result.countSql} />
    </section>
  )
}

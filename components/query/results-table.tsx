import Link from 'next/link'
import type { QueryResult } from '@/lib/query/schemas'
import { viewHref, type ViewState } from '@/lib/query/view-state'
import { SqlBlock } from './sql-block'
import { EmptyState } from './states'
import styles from './query.module.css'

const fmt = new Intl.NumberFormat('en')
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 })

/** An exact count in full; an estimate as “about 3.2 M”. */
function countText(result: QueryResult): string {
  return result.countExact ? fmt.format(result.count) : `about ${compact.format(result.count).replace(/(\d)([KMB])$/, '$1 $2')}`
}

// One page of rows with its count, paging links, CSV export and the SQL that produced it.
export function ResultsTable({ result, path, state, exportHref }: { result: QueryResult; path: string; state: ViewState; exportHref: string }) {
  const first = result.rows.length ? result.offset + 1 : 0
  const last = result.offset + result.rows.length
  const prev = Math.max(0, result.offset - result.limit)
  const hasPrev = result.offset > 0
  const hasNext = result.nextCursor !== null
  return (
    <section aria-label="Results">
      <div className={styles.summary}>
        <span data-testid="row-count">
          {result.rows.length ? `Rows ${fmt.format(first)}–${fmt.format(last)} of ${countText(result)}` : `${countText(result)} matching rows`}
        </span>
        {result.countExact ? null : (
          <span className={styles.hint} data-testid="count-estimate">
            (an estimate: too many rows to count exactly)
          </span>
        )}
        <span data-testid="elapsed">{result.elapsedMs} ms in the database</span>
        <span className={styles.hint}>
          {result.range.from} → {result.range.to}
        </span>
        <a href={exportHref} download>
          Export CSV
        </a>
        <nav className={styles.pager} aria-label="Pages">
          {hasPrev ? <Link href={viewHref(path, state, { offset: prev })}>← Previous</Link> : <span className={styles.disabled}>← Previous</span>}
          {hasNext ? <Link href={viewHref(path, state, { offset: last, cursor: result.nextCursor! })}>Next →</Link> : <span className={styles.disabled}>Next →</span>}
        </nav>
      </div>
      {result.rows.length === 0 ? (
        <EmptyState>{result.count ? 'No rows on this page: go back to an earlier page.' : 'No rows match this range and filter.'}</EmptyState>
      ) : (
        <div className={styles.tableWrap}>
          <table className={styles.table}>
            <thead>
              <tr>
                {result.columns.map((c) => (
                  <th key={c} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.rows.map((row, i) => (
                <tr key={i}>
                  {result.columns.map((c) => {
                    const v = row[c]
                    return v === null ? (
                      <td key={c} className={styles.null}>
                        null
                      </td>
                    ) : (
                      <td key={c} title={String(v)}>
                        {String(v)}
                      </td>
                    )
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.filter ? (
        <p className={styles.hint}>
          Filter as run (regenerated from its parse tree): <code>{result.filter}</code>
        </p>
      ) : null}
      <SqlBlock label="SQL" statement={result.sql} />
      <SqlBlock label="Count" statement={result.countSql} />
      {result.estimateSql ? <SqlBlock label="Estimate" statement={result.estimateSql} /> : null}
    </section>
  )
}

import Link from 'next/link'
import { Suspense } from 'react'
import type { Identity } from '@/lib/access/policy'
import { DATASETS } from '@/lib/datasets/catalog'
import { AppError } from '@/lib/errors'
import { defaultPatternColumn, patternColumns, runPatterns } from '@/lib/query/patterns'
import type { PatternsResult } from '@/lib/query/schemas'
import { queryAs } from '@/lib/saved-views/views'
import { addClause } from '@/lib/view/drilldown'
import { formatCount, formatRate } from '@/lib/view/format'
import { rangeRequest, viewHref, viewQuery, type ViewState } from '@/lib/view/view-state'
import { SqlBlock } from './sql-block'
import styles from './query.module.css'

// Patterns under the rows: one text column's values over the newest matching rows, clustered into
// templates (lib/query/patterns.ts), with counts and share; "Filter" adds the template's LIKE
// clause to the page's filter. Asked for with `patterns=<column>` in the URL (a link offers the
// dataset's default column), so the rows page does not pay for them unless they are wanted; they
// load on their own, the rows never wait for them.

const withPatterns = (href: string, column: string) => `${href}&patterns=${encodeURIComponent(column)}`

export function PatternsSection({ base, state, identity, column }: { base: string; state: ViewState; identity: Identity; column: string | null }) {
  const dataset = DATASETS[state.dataset]
  const rowsPath = base || '/'
  const fallback = defaultPatternColumn(dataset)
  if (!fallback) return null
  if (column === null)
    return (
      <p className={styles.patternsOpen}>
        <Link href={withPatterns(viewHref(rowsPath, state), fallback)} data-testid="patterns-open" prefetch={false}>
          Patterns of {fallback}
        </Link>{' '}
        <span className={styles.hint}>(the values clustered into templates)</span>
      </p>
    )
  const kept = [...new URLSearchParams(viewQuery(state))]
  return (
    <section className={styles.patterns} aria-labelledby="patterns-title" data-testid="patterns">
      <h2 id="patterns-title" className={styles.histogramTitle}>
        Patterns
      </h2>
      <form action={rowsPath} className={styles.groupForm} aria-label="Patterns">
        {kept.map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <label>
          Column
          <select name="patterns" defaultValue={column} data-testid="patterns-column">
            {patternColumns(dataset).map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Show patterns</button>
        <Link href={viewHref(rowsPath, state)} prefetch={false} data-testid="patterns-close">
          Hide patterns
        </Link>
      </form>
      <Suspense
        fallback={
          <p className={styles.hint} role="status">
            Finding patterns…
          </p>
        }
      >
        <Patterns rowsPath={rowsPath} state={state} identity={identity} column={column} />
      </Suspense>
    </section>
  )
}

async function Patterns({ rowsPath, state, identity, column }: { rowsPath: string; state: ViewState; identity: Identity; column: string }) {
  let result: PatternsResult
  try {
    result = await queryAs(identity, () => runPatterns({ ...rangeRequest(state), column }))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return (
      <p className={styles.errorText} data-testid="patterns-error">
        Patterns were not found: {error.message}
      </p>
    )
  }
  const { sample } = result
  const partial = sample.rows >= sample.limit
  return (
    <>
      <p className={styles.hint} data-testid="patterns-source">
        {partial
          ? `Sample: the newest ${formatCount(sample.rows)} of ${sample.matching === null ? 'more' : formatCount(sample.matching)} matching rows of the range.`
          : `All ${formatCount(sample.rows)} matching rows of the range.`}{' '}
        {formatCount(result.templates)} {result.templates === 1 ? 'template' : 'templates'}; numbers, ids, addresses and times are replaced by placeholders.
        “Filter” selects a template’s rows with a LIKE, a little broader than the template. {result.elapsedMs} ms.
      </p>
      {result.patterns.length === 0 ? (
        <p className={styles.hint}>No rows.</p>
      ) : (
        <div className={styles.tableWrap}>
          <table className={`${styles.table} ${styles.patternTable}`} data-testid="patterns-table">
            <caption className={styles.srOnly}>
              Patterns of {column}, the most frequent first: template, rows, share of the {sample.rows === 1 ? 'row' : 'rows'} read, and a link adding it to the
              filter.
            </caption>
            <thead>
              <tr>
                <th scope="col">Template</th>
                <th scope="col" className={styles.num}>
                  Count
                </th>
                <th scope="col" className={styles.num}>
                  Share
                </th>
                <th scope="col">
                  <span className={styles.srOnly}>Filter</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {result.patterns.map((p) => {
                const label = p.template === null ? '(none)' : p.template
                return (
                  <tr key={label} data-testid="pattern" data-count={p.count}>
                    <td className={p.template === null ? styles.null : styles.patternTemplate} title={p.example === null ? undefined : `e.g. ${p.example}`}>
                      {label}
                    </td>
                    <td className={styles.num}>{formatCount(p.count)}</td>
                    <td className={styles.num}>{formatRate(p.share)}</td>
                    <td>
                      {p.filter ? (
                        <Link
                          href={withPatterns(viewHref(rowsPath, state, { filter: addClause(state.filter, p.filter), offset: 0 }), column)}
                          aria-label={`Filter rows matching ${label}`}
                          data-testid="pattern-filter"
                          prefetch={false}
                        >
                          Filter
                        </Link>
                      ) : null}
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      <details className={styles.facetSql}>
        <summary>Patterns SQL</summary>
        {result.statements.map((s) => (
          <SqlBlock key={s.label} label={s.label} statement={s.sql} />
        ))}
      </details>
    </>
  )
}

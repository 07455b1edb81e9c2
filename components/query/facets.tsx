import Link from 'next/link'
import { Suspense, type ReactNode } from 'react'
import type { Identity } from '@/lib/access/policy'
import { DATASETS } from '@/lib/datasets/catalog'
import { AppError } from '@/lib/errors'
import { runFacets } from '@/lib/query/facets'
import { queryAs } from '@/lib/saved-views/views'
import type { FacetsResult } from '@/lib/query/schemas'
import { addClause, valueClause } from '@/lib/view/drilldown'
import { formatCount, formatRate } from '@/lib/view/format'
import { groupHref } from '@/lib/view/group-state'
import { rangeRequest, viewHref, type ViewState } from '@/lib/view/view-state'
import { SqlBlock } from './sql-block'
import styles from './query.module.css'

// Facets beside the rows: the top values of each categorical column for the page's range and
// filter, with counts and share; `=` and `≠` add the value to the filter (in the filter dialect,
// checked like a typed filter), and each column links to the group-by page. They load on their own
// (the rows never wait for them) and say where their counts come from: the rollup (exact, whole
// range) or the newest rows of the range (a sample, named with its size).
export function WithFacets({
  base,
  state,
  identity,
  exact,
  children,
}: {
  base: string
  state: ViewState
  identity: Identity
  exact: boolean
  children: ReactNode
}) {
  return (
    <div className={styles.withFacets}>
      <div className={styles.rowsColumn}>{children}</div>
      <aside className={styles.facets} aria-labelledby="facets-title" data-testid="facets">
        <h2 id="facets-title" className={styles.facetsTitle}>
          Top values
        </h2>
        <Suspense
          fallback={
            <p className={styles.hint} role="status">
              Counting top values…
            </p>
          }
        >
          <Facets base={base} state={state} identity={identity} exact={exact} />
        </Suspense>
      </aside>
    </div>
  )
}

async function Facets({ base, state, identity, exact }: { base: string; state: ViewState; identity: Identity; exact: boolean }) {
  let result: FacetsResult
  try {
    result = await queryAs(identity, () => runFacets({ ...rangeRequest(state), exact }))
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return (
      <p className={styles.errorText} data-testid="facets-error">
        Top values were not counted: {error.message}
      </p>
    )
  }
  const dataset = DATASETS[state.dataset]
  const rowsPath = base || '/'
  const href = (column: string, value: FacetsResult['facets'][number]['values'][number]['value'], op: '=' | '!=') => {
    const def = dataset.columns.find((c) => c.name === column)!
    return viewHref(rowsPath, state, { filter: addClause(state.filter, valueClause(def, value, op)), offset: 0 })
  }
  const sampled = result.facets.some((f) => f.source === 'sample')
  const marked = result.facets.some((f) => f.source === 'rollup')
  const sample = result.sample
  const partial = sampled && sample !== null && !sample.complete
  return (
    <>
      <p className={partial ? styles.facetsSampled : styles.hint} data-testid="facets-source" data-sampled={partial ? 'true' : undefined}>
        {!sampled || !sample
          ? 'Exact counts over the whole range, from the rollup.'
          : sample.complete
            ? `Counted${sample.limit === null ? ' exactly' : ''} in all ${formatCount(sample.rows)} matching rows${marked ? ' (marked columns from the rollup)' : ''}.`
            : `Sample: counted from the newest ${formatCount(sample.rows)} of ${sample.matching === null ? 'more' : formatCount(sample.matching)} matching rows of the range, not all of them: the rollup cannot answer these columns exactly for this range and filter${marked ? ' (columns marked “exact” are from the rollup)' : ''}.`}{' '}
        {result.elapsedMs} ms.
        {partial ? (
          <>
            {' '}
            <Link href={`${viewHref(rowsPath, state)}&facets=exact`} data-testid="facets-exact" prefetch={false}>
              Count exactly over the whole range
            </Link>{' '}
            (slower; may run out of time on long ranges).
          </>
        ) : null}
      </p>
      {result.facets.map((facet) => (
        <section
          key={facet.column}
          className={styles.facet}
          aria-labelledby={`facet-${facet.column}`}
          data-testid="facet"
          data-column={facet.column}
          data-source={facet.source}
        >
          <h3 id={`facet-${facet.column}`}>
            <span>{facet.column}</span>
            <span className={styles.hint}>
              {sampled && facet.source === 'rollup' ? 'exact · ' : ''}
              {formatCount(facet.distinct)} {facet.distinct === 1 ? 'value' : 'values'}
            </span>
            <Link
              className={styles.facetGroup}
              href={groupHref(`${base}/group`, state, { by: [facet.column], sort: 'count', desc: true, rows: false, every: '' })}
              aria-label={`Group by ${facet.column}`}
            >
              group
            </Link>
          </h3>
          {facet.values.length === 0 ? (
            <p className={styles.hint}>No rows.</p>
          ) : (
            <ul className={styles.facetValues}>
              {facet.values.map((v) => {
                const label = v.value === null ? '(none)' : String(v.value)
                return (
                  <li key={label} data-testid="facet-value" data-count={v.count}>
                    <span className={styles.facetLabel} title={label}>
                      {label}
                    </span>
                    <span className={styles.facetCount}>
                      {formatCount(v.count)} <span className={styles.hint}>{formatRate(v.share)}</span>
                    </span>
                    <span className={styles.facetShare} style={{ width: `${Math.max(0.5, v.share * 100)}%` }} aria-hidden="true" />
                    <span className={styles.facetOps}>
                      <Link
                        href={href(facet.column, v.value, '=')}
                        aria-label={`Filter ${facet.column} = ${label}`}
                        title={`Only rows where ${facet.column} = ${label}`}
                      >
                        =
                      </Link>
                      <Link
                        href={href(facet.column, v.value, '!=')}
                        aria-label={`Filter ${facet.column} ≠ ${label}`}
                        title={`Rows where ${facet.column} ≠ ${label}`}
                      >
                        ≠
                      </Link>
                    </span>
                  </li>
                )
              })}
            </ul>
          )}
        </section>
      ))}
      <details className={styles.facetSql}>
        <summary>Top values SQL</summary>
        {result.statements.map((s) => (
          <SqlBlock key={s.label} label={s.label} statement={s.sql} />
        ))}
      </details>
    </>
  )
}

import Link from 'next/link'
import { DATASETS } from '@/lib/datasets/catalog'
import type { CompareResult } from '@/lib/query/compare'
import { COMPARE_MODES } from '@/lib/view/compare'
import { addClause, valueClause } from '@/lib/view/drilldown'
import { formatCount } from '@/lib/view/format'
import { formatTime } from '@/lib/view/time'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './compare.module.css'

const percent = (share: number) => `${(share * 100).toFixed(1)} %`
const points = (delta: number) => `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta * 100).toFixed(1)} pt`

/** A value as the text the filter takes back: numbers and booleans as themselves. */
function cellValue(type: string, value: string | null): string | number | boolean | null {
  if (value === null) return null
  if (type === 'integer' || type === 'bigint' || type === 'number') return Number(value)
  if (type === 'boolean') return value === 'true'
  return value
}

// "What changed": for each categorical column, the values whose share of the rows moved most
// between the baseline window and the range; each value filters the rows by it.
export function WhatChanged({ compare, path, state }: { compare: CompareResult; path: string; state: ViewState }) {
  const dataset = DATASETS[state.dataset]
  // A column whose every share stayed the same has nothing to say: named in one line instead.
  const moved = (c: CompareResult['changes'][number]) => c.values.some((v) => Math.abs(v.delta) >= 0.0005)
  const columns = compare.changes.filter(moved)
  const unchanged = compare.changes.filter((c) => !moved(c)).map((c) => c.column)
  return (
    <section className={styles.changes} aria-labelledby="what-changed-title" data-testid="what-changed">
      <h2 id="what-changed-title">What changed</h2>
      <p className={styles.note}>
        Share of rows per value: {formatTime(compare.range.from, state.tz)} → {formatTime(compare.range.to, state.tz)} against{' '}
        {COMPARE_MODES[compare.compare].toLowerCase()} ({formatTime(compare.baselineRange.from, state.tz)} → {formatTime(compare.baselineRange.to, state.tz)});
        the values that moved most first.
      </p>
      <div className={styles.columns}>
        {columns.map((c) => {
          const column = dataset.columns.find((d) => d.name === c.column) ?? { name: c.column, type: 'text' as const }
          return (
            <div key={c.column} className={styles.scroll}>
              <table className={styles.table} data-testid="changes-table" data-column={c.column}>
                <caption>
                  {c.column}{' '}
                  <span className={styles.captionNote}>
                    · from {c.source === 'rollup' ? 'the rollup' : c.sampled ? 'a sample of the newest rows of each window' : 'the rows'} ·{' '}
                    {formatCount(c.baselineTotal)} → {formatCount(c.currentTotal)} rows
                  </span>
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Value</th>
                    <th scope="col" className={styles.num}>
                      Before
                    </th>
                    <th scope="col" className={styles.num}>
                      Now
                    </th>
                    <th scope="col" className={styles.num}>
                      Change
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {c.values.map((v) => {
                    const label = v.value === null ? '(none)' : v.value
                    return (
                      <tr key={label} data-testid="change-row">
                        <td className={styles.value}>
                          <Link
                            href={viewHref(path, state, { filter: addClause(state.filter, valueClause(column, cellValue(column.type, v.value))), offset: 0 })}
                            title={`Filter by ${c.column} = ${label}`}
                          >
                            {label}
                          </Link>
                        </td>
                        <td className={styles.num} title={`${formatCount(v.baseline)} rows`}>
                          {percent(v.baselineShare)}
                        </td>
                        <td className={styles.num} title={`${formatCount(v.current)} rows`}>
                          {percent(v.currentShare)}
                        </td>
                        <td className={styles.num} data-testid="change-delta">
                          {points(v.delta)}
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </table>
            </div>
          )
        })}
      </div>
      {unchanged.length ? (
        <p className={styles.note} data-testid="unchanged-columns">
          {columns.length ? 'No share moved by 0.1 pt or more in' : 'No share moved by 0.1 pt or more in any column:'} {unchanged.join(', ')}.
        </p>
      ) : null}
      <details>
        <summary>What-changed SQL</summary>
        {compare.changes.map((c) => (
          <pre key={c.column}>{c.sql.text}</pre>
        ))}
      </details>
    </section>
  )
}

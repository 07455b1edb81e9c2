import Link from 'next/link'
import { DATASETS } from '@/lib/datasets/catalog'
import type { GroupByResult } from '@/lib/query/schemas'
import { addClause, valueClause } from '@/lib/view/drilldown'
import { formatBytes, formatCount, formatMs, formatRate } from '@/lib/view/format'
import { formatTime } from '@/lib/view/time'
import { groupableColumns, groupHref, type GroupState } from '@/lib/view/group-state'
import { viewHref, viewQuery, type ViewState } from '@/lib/view/view-state'
import { GroupFormClient } from './group-form-client'
import { SqlBlock } from './sql-block'
import { EmptyState } from './states'
import styles from './query.module.css'

// The group-by page's parts: the choice of one or two columns (a GET form that keeps the range and
// filter), and the groups as a table whose headers sort it and whose first cell opens the group's
// rows (the rows page with the group's values added to the filter).

export function GroupByForm({ path, state, group }: { path: string; state: ViewState; group: GroupState }) {
  const dataset = DATASETS[state.dataset]
  const columns = groupableColumns(dataset)
  const kept = [...new URLSearchParams(viewQuery({ ...state, offset: 0, cursor: '' }))]
  return (
    <GroupFormClient path={path} className={styles.groupForm} key={`${viewQuery(state)}&${group.by.join(',')}`}>
      {kept.map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {group.sort !== 'count' || !group.desc ? <input type="hidden" name="gsort" value={`${group.desc ? '-' : ''}${group.sort}`} /> : null}
      <label>
        Group by
        <select name="by" defaultValue={group.by[0]}>
          {columns.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Then by
        <select name="by" defaultValue={group.by[1] ?? ''}>
          <option value="">(nothing)</option>
          {columns.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Group</button>
    </GroupFormClient>
  )
}

type Group = GroupByResult['groups'][number]

/** A first/last-seen time; from the rollup it is the start of the minute or hour that holds it, said with "~" and a "within" note. */
function seen(at: Group['firstSeen'], zone: string): string {
  if (!at) return '–'
  return at.within === 'exact' ? formatTime(at.at, zone) : `~${formatTime(at.at, zone)} (within the ${at.within})`
}

export function GroupByTable({ result, base, state, group }: { result: GroupByResult; base: string; state: ViewState; group: GroupState }) {
  const dataset = DATASETS[result.dataset]
  const path = `${base}/group`
  const defs = result.by.map((name) => dataset.columns.find((c) => c.name === name)!)
  const rowsHref = (g: Group) =>
    viewHref(base || '/', state, { filter: defs.reduce((filter, def, i) => addClause(filter, valueClause(def, g.values[i], '=')), state.filter), offset: 0 })
  const label = (v: Group['values'][number]) => (v === null ? '(none)' : String(v))
  const bytes = new Set(dataset.columns.filter((c) => c.unit === 'bytes').map((c) => c.name))

  const measures: Array<{ key: string; title: string; cell: (g: Group) => string }> = [
    { key: 'count', title: 'Rows', cell: (g) => formatCount(g.count) },
    ...(result.measures.errors && !result.omitted.includes('errors')
      ? [
          { key: 'errors', title: result.measures.errors.label, cell: (g: Group) => (g.errors === null ? '–' : formatCount(g.errors)) },
          { key: 'error_rate', title: 'Error rate', cell: (g: Group) => formatRate(g.errorRate) },
        ]
      : []),
    ...(result.measures.duration && !result.omitted.includes('p50')
      ? [
          { key: 'p50', title: `p50 ${result.measures.duration}`, cell: (g: Group) => formatMs(g.p50) },
          { key: 'p95', title: `p95 ${result.measures.duration}`, cell: (g: Group) => formatMs(g.p95) },
        ]
      : []),
    ...result.measures.sums
      .filter((s) => !result.omitted.includes(s))
      .map((s) => ({ key: s, title: s, cell: (g: Group) => (bytes.has(s) ? formatBytes(g.sums[s] ?? 0) : formatCount(g.sums[s] ?? 0)) })),
    { key: 'first_seen', title: 'First seen', cell: (g) => seen(g.firstSeen, state.tz) },
    { key: 'last_seen', title: 'Last seen', cell: (g) => seen(g.lastSeen, state.tz) },
  ]
  const sortHeader = (key: string, title: string, numeric: boolean) => {
    const active = group.sort === key
    const desc = active ? !group.desc : key !== 'value'
    return (
      <th
        key={`${key}-${title}`}
        scope="col"
        className={numeric ? styles.num : undefined}
        aria-sort={active ? (group.desc ? 'descending' : 'ascending') : undefined}
      >
        <Link
          className={styles.sortLink}
          href={groupHref(path, state, group, { sort: key, desc })}
          data-dir={active ? (group.desc ? 'desc' : 'asc') : undefined}
          aria-label={`${title}: sort ${desc ? 'descending' : 'ascending'}`}
        >
          {title}
        </Link>
      </th>
    )
  }
  const shown = result.groups.length
  return (
    <section aria-labelledby="groups-title" data-testid="group-by">
      <h2 id="groups-title" className={styles.histogramTitle}>
        <span data-testid="group-count">{formatCount(result.groupCount)}</span> {result.groupCount === 1 ? 'group' : 'groups'} by {result.by.join(' and ')}
        <span className={styles.hint}>
          {' '}
          · <span data-testid="group-total">{formatCount(result.total)}</span> rows
          {result.groupCount > shown ? ` · the ${formatCount(shown)} first by ${group.sort === 'value' ? 'value' : group.sort.replace('_', ' ')} shown` : ''} ·
          from <span data-testid="group-source">{result.source === 'rollup' ? 'the rollup' : 'the rows'}</span> · {result.elapsedMs} ms in the database
        </span>
      </h2>
      {result.omitted.length ? (
        <p className={styles.hint} data-testid="group-omitted">
          {result.omitted.join(', ')} per group {result.omitted.length === 1 ? 'is' : 'are'} not in the rollup.{' '}
          <Link href={groupHref(path, state, group, { rows: true })}>Read the rows for {result.omitted.join(', ')}</Link> (slower over long ranges).
        </p>
      ) : group.rows ? (
        <p className={styles.hint}>
          Read from the rows on request. <Link href={groupHref(path, state, group, { rows: false })}>Use the rollup where it can answer</Link>.
        </p>
      ) : null}
      {shown === 0 ? (
        <EmptyState>No rows match this range and filter.</EmptyState>
      ) : (
        <div className={styles.tableWrap}>
          <table className={`${styles.table} ${styles.groupTable}`} data-testid="group-table">
            <caption className={styles.srOnly}>Groups by {result.by.join(' and ')}; a group’s first cell opens its rows; column headers sort.</caption>
            <thead>
              <tr>
                {result.by.map((c, i) =>
                  i === 0 ? (
                    sortHeader('value', c, false)
                  ) : (
                    <th key={c} scope="col">
                      {c}
                    </th>
                  ),
                )}
                {measures.map((m) => sortHeader(m.key, m.title, true))}
                <th scope="col" className={styles.num}>
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {result.groups.map((g) => (
                <tr key={JSON.stringify(g.values)} data-testid="group-row">
                  {g.values.map((v, i) =>
                    i === 0 ? (
                      <td key={i}>
                        <Link
                          href={rowsHref(g)}
                          aria-label={`Rows where ${result.by.map((c, k) => `${c} = ${label(g.values[k])}`).join(' and ')}`}
                          data-testid="group-link"
                        >
                          {label(v)}
                        </Link>
                      </td>
                    ) : (
                      <td key={i} className={v === null ? styles.null : undefined}>
                        {label(v)}
                      </td>
                    ),
                  )}
                  {measures.map((m) => (
                    <td key={m.key} className={styles.num} data-measure={m.key}>
                      {m.cell(g)}
                    </td>
                  ))}
                  <td className={styles.num}>{formatRate(result.total ? g.count / result.total : null)}</td>
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
    </section>
  )
}

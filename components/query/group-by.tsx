import Link from 'next/link'
import { DATASETS } from '@/lib/datasets/catalog'
import type { GroupByResult } from '@/lib/query/schemas'
import { addClause, valueClause } from '@/lib/view/drilldown'
import { formatBytes, formatCount, formatMs, formatRate } from '@/lib/view/format'
import { formatTime, formatWallTime, zoneOffsetMinutes } from '@/lib/view/time'
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
    <GroupFormClient path={path} className={styles.groupForm} key={`${viewQuery(state)}&${group.by.join(',')}&${group.every}`}>
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
      <label>
        Per
        <select name="every" defaultValue={group.every}>
          <option value="">(no split)</option>
          <option value="hour">hour</option>
          <option value="day">day</option>
        </select>
      </label>
      <button type="submit">Group</button>
    </GroupFormClient>
  )
}

type Group = GroupByResult['groups'][number]

const HOUR_MS = 3_600_000

/** The end of the hour or day starting at `start` in `zone` (a day is 23 or 25 hours across a clock change). */
function periodEnd(start: number, every: 'hour' | 'day', zone: string): number {
  if (every === 'hour') return start + HOUR_MS
  const end = start + 24 * HOUR_MS
  return end + (zoneOffsetMinutes(start, zone) - zoneOffsetMinutes(end, zone)) * 60_000
}

/** A first/last-seen time; from the rollup it is the start of the minute or hour that holds it, said with "~" and a "within" note. */
function seen(at: Group['firstSeen'], zone: string): string {
  if (!at) return '–'
  return at.within === 'exact' ? formatTime(at.at, zone) : `~${formatTime(at.at, zone)} (within the ${at.within})`
}

export function GroupByTable({ result, base, state, group }: { result: GroupByResult; base: string; state: ViewState; group: GroupState }) {
  const dataset = DATASETS[result.dataset]
  const path = `${base}/group`
  const defs = result.by.map((name) => dataset.columns.find((c) => c.name === name)!)
  // With a period, the first value is its start: the group's rows are those of the period (a custom
  // range in the page's zone, within the page's range) under the group's value filter.
  const every = result.every
  const lead = every ? 1 : 0
  const values = (g: Group) => g.values.slice(lead)
  const periodRange = (g: Group): Partial<ViewState> => {
    if (!every) return {}
    const start = Date.parse(String(g.values[0]))
    return {
      range: 'custom',
      from: formatWallTime(Math.max(start, Date.parse(result.range.from)), state.tz),
      to: formatWallTime(Math.min(periodEnd(start, every, result.timeZone), Date.parse(result.range.to)), state.tz),
    }
  }
  const rowsHref = (g: Group) =>
    viewHref(base || '/', state, {
      filter: defs.reduce((filter, def, i) => addClause(filter, valueClause(def, values(g)[i], '=')), state.filter),
      offset: 0,
      ...periodRange(g),
    })
  const periodTitle = every === 'hour' ? 'Hour' : 'Day'
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
        {every ? ` per ${every}` : ''}
        <span className={styles.hint}>
          {' '}
          · <span data-testid="group-total">{formatCount(result.total)}</span> rows
          {result.groupCount > shown && !every
            ? ` · the ${formatCount(shown)} first by ${group.sort === 'value' ? 'value' : group.sort.replace('_', ' ')} shown`
            : ''}
          {every ? ` · ${every}s in ${state.tz}` : ''} · from <span data-testid="group-source">{result.source === 'rollup' ? 'the rollup' : 'the rows'}</span> ·{' '}
          {result.elapsedMs} ms in the database
        </span>
      </h2>
      {every && result.groupCount > shown ? (
        <p className={styles.hint} data-testid="group-cut">
          Only the first {formatCount(shown)} of {formatCount(result.groupCount)} ({every}, group) rows are shown: {every}s in order, then by{' '}
          {group.sort === 'value' ? 'value' : group.sort.replace('_', ' ')} within each; the later {every}s are cut off. Narrow the range or filter to see them.
        </p>
      ) : null}
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
            <caption className={styles.srOnly}>
              Groups by {result.by.join(' and ')}
              {every ? ` per ${every}` : ''}; a group’s first {every ? 'value' : 'cell'} opens its rows{every ? ` in that ${every}` : ''}; column headers sort
              {every ? ` within each ${every}` : ''}.
            </caption>
            <thead>
              <tr>
                {every ? (
                  <th scope="col" className={styles.periodCell} data-testid="group-period-header">
                    {periodTitle}
                  </th>
                ) : null}
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
                  {every ? (
                    <td className={styles.periodCell} data-testid="group-period" title={formatTime(String(g.values[0]), state.tz)}>
                      {formatTime(String(g.values[0]), state.tz)}
                    </td>
                  ) : null}
                  {values(g).map((v, i) =>
                    i === 0 ? (
                      <td key={i}>
                        <Link
                          href={rowsHref(g)}
                          aria-label={`Rows where ${result.by.map((c, k) => `${c} = ${label(values(g)[k])}`).join(' and ')}${every ? ` in the ${every} from ${formatTime(String(g.values[0]), state.tz)}` : ''}`}
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

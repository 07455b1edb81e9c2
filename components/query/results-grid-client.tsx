'use client'

import Link from 'next/link'
import { useRouter } from 'next/navigation'
import { useRef, useState } from 'react'
import { addClause, canFilterBy, valueClause, type CellValue, type FilterOp } from '@/lib/view/drilldown'
import { DATASETS, type ColumnDef } from '@/lib/datasets/catalog'
import { formatBytes, formatCount } from '@/lib/view/format'
import { formatTime } from '@/lib/view/time'
import { viewHref, type ViewState } from '@/lib/view/view-state'
import styles from './query.module.css'

export type GridColumn = Pick<ColumnDef, 'name' | 'type' | 'unit'>
type Row = Record<string, CellValue>

interface GridProps {
  /** The columns shown in the table. */
  columns: GridColumn[]
  /** Every column of the dataset, for the row detail. */
  fields: GridColumn[]
  rows: Row[]
  path: string
  state: ViewState
  /** Number of the first row on this page (1-based), for the row labels. */
  firstRow: number
  /** Columns the rows can be sorted by (indexed ones): their headers are links. */
  sortColumns: string[]
  /** Each row's key (the query API's `keys`): the row detail then links to the rows around it. */
  keys?: string[]
  /** The row the page is about (rows in context): marked, and its detail says so. */
  current?: number | null
}

const NUMERIC = new Set(['integer', 'bigint', 'number'])
/** Datasets this service writes about itself: their rows link to the API requests of their moment. */
const SELF_DATASETS = new Set(['job_runs', 'alerts', 'domain_checks'])
const MOMENT_MARGIN_MS = 5 * 60_000
/** Past this many characters a text wraps in its cell (an error message, a summary) instead of being cut off. */
const LONG_TEXT = 48
const isLong = (v: CellValue) => typeof v === 'string' && v.length > LONG_TEXT

/** The text a cell shows: times in the page's format and zone, byte counts in KB/MB/GB. */
function display(column: GridColumn, value: CellValue, tz: string): string {
  if (value === null) return 'null'
  if (column.type === 'timestamp') return formatTime(String(value), tz)
  if (column.unit === 'bytes' && typeof value === 'number') return formatBytes(value)
  return String(value)
}

function exact(column: GridColumn, value: CellValue): string {
  if (column.unit === 'bytes' && typeof value === 'number') return `${formatCount(value)} bytes`
  return String(value)
}

// The page of rows. A click on a cell adds `column = value` to the filter (Alt/Option-click adds
// `!=`; Ctrl/⌘-click opens that in a new tab); selecting text to copy it does not. Each row opens a
// detail dialog with every field in full, to copy or filter by.
export function ResultsGrid({ columns, fields, rows, path, state, firstRow, sortColumns, keys, current }: GridProps) {
  const router = useRouter()
  const dialog = useRef<HTMLDialogElement>(null)
  // The row shown in the dialog, kept as it was opened: a live tail adds rows above it meanwhile.
  const [open, setOpen] = useState<{ row: Row; number: number; key?: string } | null>(null)
  const [copied, setCopied] = useState<string | null>(null)

  const filterHref = (column: GridColumn, value: CellValue, op: FilterOp) =>
    viewHref(path, state, { filter: addClause(state.filter, valueClause(column, value, op)), offset: 0 })
  // The API requests of a row's moment, for rows this service writes about itself (a job run, an
  // alert, a domain check): from 5 minutes before its first time to 5 minutes after its last.
  const momentHref = (row: Row) => {
    if (!SELF_DATASETS.has(state.dataset)) return null
    const times = fields.filter((c) => c.type === 'timestamp' && row[c.name] !== null).map((c) => Date.parse(String(row[c.name])))
    if (!times.length) return null
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
    return viewHref(path, state, {
      dataset: 'requests',
      range: 'custom',
      from: iso(Math.min(...times) - MOMENT_MARGIN_MS),
      to: iso(Math.max(...times) + MOMENT_MARGIN_MS),
      filter: '',
      columns: [],
      sort: '',
      desc: true,
      offset: 0,
      live: false,
    })
  }
  // Rows around one row: under the page's filter, or only those sharing one of its values.
  const aroundHref = (key: string, filter: string) => viewHref(path, state, { around: key, filter, offset: 0, live: false })

  function onCellClick(e: React.MouseEvent<HTMLTableSectionElement>) {
    const cell = (e.target as HTMLElement).closest('td[data-filterable]')
    const row = cell?.closest('tr')?.dataset.row
    if (!cell || row === undefined || window.getSelection()?.toString()) return
    const column = columns.find((c) => c.name === (cell as HTMLElement).dataset.col)
    if (!column) return
    const href = filterHref(column, rows[Number(row)][column.name], e.altKey ? '!=' : '=')
    if (e.ctrlKey || e.metaKey) window.open(href, '_blank', 'noopener')
    else router.push(href)
  }

  function show(i: number) {
    setOpen({ row: rows[i], number: firstRow + i, key: keys?.[i] })
    setCopied(null)
    dialog.current?.showModal()
  }

  async function copy(name: string, value: CellValue) {
    await navigator.clipboard.writeText(value === null ? '' : String(value))
    setCopied(name)
  }

  const detail = open?.row ?? null
  const moment = detail ? momentHref(detail) : null
  return (
    <>
      <div className={styles.tableWrap} data-testid="rows">
        <table className={styles.table}>
          <caption className={styles.srOnly}>Rows; click a cell to filter by its value, Alt-click to exclude it.</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className={styles.srOnly}>Details</span>
              </th>
              {columns.map((c) => (
                <ColumnHeader key={c.name} column={c} path={path} state={state} sortable={sortColumns.includes(c.name)} />
              ))}
            </tr>
          </thead>
          <tbody onClick={onCellClick}>
            {rows.map((row, i) => (
              <tr key={i} data-row={i} className={i === current ? styles.currentRow : undefined} aria-current={i === current ? 'true' : undefined}>
                <td>
                  <button
                    type="button"
                    className={styles.rowButton}
                    onClick={() => show(i)}
                    aria-label={`Details of row ${formatCount(firstRow + i)}`}
                    title="Every field in full"
                  >
                    ⋯
                  </button>
                </td>
                {columns.map((c) => {
                  const v = row[c.name]
                  const filterable = canFilterBy(c)
                  return (
                    <td
                      key={c.name}
                      data-col={c.name}
                      data-filterable={filterable ? '' : undefined}
                      className={v === null ? styles.null : NUMERIC.has(c.type) ? styles.num : isLong(v) ? styles.long : undefined}
                      title={v === null ? undefined : `${exact(c, v)}${filterable ? '\nClick: filter by this value · Alt-click: exclude it' : ''}`}
                    >
                      {display(c, v, state.tz)}
                    </td>
                  )
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <dialog ref={dialog} className={styles.dialog} aria-labelledby="row-detail-title" onClose={() => setOpen(null)}>
        {detail ? (
          <>
            <div className={styles.dialogHead}>
              <h2 id="row-detail-title">Row {formatCount(open!.number)}</h2>
              <span className={styles.hint} aria-live="polite">
                {copied ? `Copied ${copied}.` : ''}
              </span>
              <button type="button" className={styles.rowButton} onClick={() => dialog.current?.close()}>
                Close
              </button>
            </div>
            {moment ? (
              <p className={styles.dialogLinks}>
                <Link href={moment} onClick={() => dialog.current?.close()} data-testid="moment-link">
                  API requests at that moment
                </Link>
                <span className={styles.hint}> (from 5 minutes before to 5 minutes after this row’s times)</span>
              </p>
            ) : null}
            {open?.key ? (
              <p className={styles.dialogLinks}>
                <Link href={aroundHref(open.key, state.filter)} onClick={() => dialog.current?.close()} data-testid="around-link">
                  Rows around this one
                </Link>
                <span className={styles.hint}>
                  {' '}
                  (the rows just before and after it{state.filter ? ', under this filter' : ''}; ↔ Around below keeps only one field’s value)
                </span>
              </p>
            ) : null}
            <dl className={styles.fields}>
              {fields.map((c) => {
                const v = detail[c.name]
                return (
                  <div key={c.name} style={{ display: 'contents' }}>
                    <dt>{c.name}</dt>
                    <dd>
                      <code data-field={c.name}>{v === null ? 'null' : exact(c, v)}</code>
                      {c.type === 'timestamp' && v !== null ? <span className={styles.hint}>{formatTime(String(v), state.tz)}</span> : null}
                      <span className={styles.fieldActions}>
                        {v !== null ? (
                          <button type="button" onClick={() => copy(c.name, v)} aria-label={`Copy ${c.name}`}>
                            Copy
                          </button>
                        ) : null}
                        {canFilterBy(c) ? (
                          <>
                            <Link href={filterHref(c, v, '=')} onClick={() => dialog.current?.close()} aria-label={`= Filter by ${c.name}`}>
                              = Filter
                            </Link>
                            <Link href={filterHref(c, v, '!=')} onClick={() => dialog.current?.close()} aria-label={`≠ Exclude this ${c.name}`}>
                              ≠ Exclude
                            </Link>
                            {open?.key ? (
                              <Link
                                href={aroundHref(open.key, valueClause(c, v, '='))}
                                onClick={() => dialog.current?.close()}
                                aria-label={`Rows around this one with the same ${c.name}`}
                              >
                                ↔ Around
                              </Link>
                            ) : null}
                          </>
                        ) : null}
                      </span>
                    </dd>
                  </div>
                )
              })}
            </dl>
          </>
        ) : null}
      </dialog>
    </>
  )
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const

/**
 * A column header; a sortable one is a link (keyboard and pointer alike) that sorts by it, or flips
 * the direction when the rows are already sorted by it. Times and numbers start descending (newest,
 * largest first), text ascending. The sorted column carries aria-sort.
 */
function ColumnHeader({ column, path, state, sortable }: { column: GridColumn; path: string; state: ViewState; sortable: boolean }) {
  if (!sortable) return <th scope="col">{column.name}</th>
  const timeColumn = DATASETS[state.dataset].timeColumn
  const current = (state.sort || timeColumn) === column.name ? (state.desc ? 'desc' : 'asc') : null
  const next = current ? (current === 'desc' ? 'asc' : 'desc') : column.type === 'text' || column.type === 'inet' ? 'asc' : 'desc'
  const href = viewHref(path, state, { sort: column.name === timeColumn ? '' : column.name, desc: next === 'desc', offset: 0 })
  return (
    <th scope="col" aria-sort={current ? ARIA_SORT[current] : undefined}>
      {/* The arrow is CSS content with empty alternative text: the header's name and text stay the column's name. */}
      <Link
        href={href}
        className={styles.sortLink}
        title={`Sort by ${column.name}, ${next === 'desc' ? 'descending' : 'ascending'}`}
        data-sort={column.name}
        data-dir={current ?? 'none'}
      >
        {column.name}
      </Link>
    </th>
  )
}

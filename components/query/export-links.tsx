import { formatCount } from '@/lib/view/format'
import styles from './query.module.css'

// What an export contains, said before it is downloaded: how many rows (all, or the newest up to
// QUERY_EXPORT_MAX_ROWS), which columns, and the time format. Not shown when nothing matches.
export function ExportLinks({
  href,
  count,
  countText,
  maxRows,
  columns,
  allColumns,
}: {
  href: string
  count: number
  countText: string
  maxRows: number
  columns: number
  allColumns: number
}) {
  if (count === 0) return null
  const rows =
    count <= maxRows
      ? `all ${countText} matching row${count === 1 ? '' : 's'}`
      : `the newest ${formatCount(maxRows)} of ${countText} matching rows (QUERY_EXPORT_MAX_ROWS)`
  const cols = columns === allColumns ? `all ${allColumns} columns` : `the ${columns} shown columns of ${allColumns}`
  return (
    <span data-testid="export">
      {`Export ${rows}, ${cols}, newest first, times in ISO 8601 UTC: `}
      <a href={`${href}&format=csv`} download>
        CSV
      </a>{' '}
      <span className={styles.hint}>(UTF-8)</span> ·{' '}
      <a href={`${href}&format=ndjson`} download>
        NDJSON
      </a>
    </span>
  )
}

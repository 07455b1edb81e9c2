import type { QueryResult } from '@/lib/query/schemas'
import styles from './query.module.css'

type Statement = QueryResult['sql']

// A statement exactly as it ran: the text sent to the database and the values bound to $1, $2…
export function SqlBlock({ label, statement }: { label: string; statement: Statement }) {
  return (
    <div className={styles.sql}>
      <strong>{label}</strong>
      <pre data-testid="sql">{statement.text}</pre>
      <span className={styles.hint} data-testid="sql-params">
        Parameters: {statement.params.length ? statement.params.map((p, i) => `$${i + 1} = ${JSON.stringify(p)}`).join(', ') : 'none'}
      </span>
    </div>
  )
}

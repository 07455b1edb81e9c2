import { replicaLagNote } from '@/lib/query/replica-lag'
import styles from './query.module.css'

// How far behind the data is, when the query role reads a replica that lags past
// QUERY_REPLICA_LAG_NOTE_S (lib/query/replica-lag.ts); nothing otherwise.
export async function ReplicaLagNote() {
  const note = await replicaLagNote()
  if (!note) return null
  return (
    <div className={styles.notice} role="status" data-testid="replica-lag">
      {note}
    </div>
  )
}

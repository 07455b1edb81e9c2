import type { RequestLogEntry } from '@/lib/http/request-log'
import type { SpoolStatus } from '@/lib/request-log/spool'

// What every request-log sink offers (the journal of lib/request-log/shipper.ts, the memory writer
// of lib/request-log/writer.ts) and the status health reads.

export interface RequestLogWriterStatus {
  /** `journal`: appended to local segments, shipped to the database; `memory`: buffered in memory only. */
  mode: 'journal' | 'memory'
  /** Entries in memory waiting to be written (journal: waiting for the next group commit). */
  pending: number
  /** Bytes waiting in the journal (0 without one). */
  spooledBytes: number
  /** Entries lost: since the journal began (persisted) with one, since start without. */
  dropped: number
  /** Epoch ms of the last entry dropped (journal: kept across restarts), or null. */
  lastDroppedAt: number | null
  /** Consecutive failed writes; 0 when the last write succeeded. */
  failures: number
  /** Epoch ms of the next write attempt while backing off, else null. */
  retryAt: number | null
  /** The journal: on with its numbers, or off. */
  spool: ({ state: 'on' } & SpoolStatus) | { state: 'off'; reason: string }
  shipper: {
    /** Age of the oldest entry not yet stored (0 when nothing waits). */
    lagMs: number
    lastStoredAt: number | null
    storedSinceStart: number
  }
}

export interface RequestLogWriter {
  record(entry: RequestLogEntry): void
  flush(): Promise<void>
  /** Last write within `deadlineMs`; the journal keeps what is left. */
  stop(deadlineMs?: number): Promise<void>
  /** An exit that cannot wait: the journal commits synchronously; the memory writer loses its buffer. */
  abandon(): void
  /** Entries waiting in memory. */
  pending(): number
  status(): RequestLogWriterStatus
}

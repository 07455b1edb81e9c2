import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { definition } from '@/lib/datasets/sessions/definition'
import { gatewaySessions, gatewaySessionsRollup } from '@/lib/datasets/sessions/tables'

// Written by the Logpush ingest (lib/ingest/logpush.ts), through lib/datasets/registry.ts: a line
// delivered again has the same row hash and is stored and counted once.
export const store = { definition, rows: gatewaySessions, rollup: gatewaySessionsRollup, conflict: ['row_hash', 'session_start_time'] } satisfies StoredDataset<
  typeof gatewaySessions
>

import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { definition } from '@/lib/datasets/http/definition'
import { gatewayHttp, gatewayHttpRollup } from '@/lib/datasets/http/tables'

// Written by the Logpush ingest (lib/ingest/logpush.ts), through lib/datasets/registry.ts: a line
// delivered again has the same row hash and is stored and counted once.
export const store = { definition, rows: gatewayHttp, rollup: gatewayHttpRollup, conflict: ['row_hash', 'datetime'] } satisfies StoredDataset<
  typeof gatewayHttp
>

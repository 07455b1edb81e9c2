import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { definition } from '@/lib/datasets/dns/definition'
import { gatewayDns, gatewayDnsRollup } from '@/lib/datasets/dns/tables'

// Written by the Logpush ingest (lib/ingest/logpush.ts), through lib/datasets/registry.ts: a line
// delivered again has the same row hash and is stored and counted once.
export const store = { definition, rows: gatewayDns, rollup: gatewayDnsRollup, conflict: ['row_hash', 'datetime'] } satisfies StoredDataset<typeof gatewayDns>

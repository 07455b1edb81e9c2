import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { datasetWriter } from '@/lib/datasets/storage/writer'
import { definition } from '@/lib/datasets/domain-checks/definition'
import { domainChecks, domainChecksRollup } from '@/lib/datasets/domain-checks/tables'

// Each row is a new event: its identity (with the time, the partition key) is the conflict key.
export const store = { definition, rows: domainChecks, rollup: domainChecksRollup, conflict: ['checked_at', 'id'] } satisfies StoredDataset<typeof domainChecks>

/** Stores rows of the table with their rollup. */
export const write = datasetWriter(store)

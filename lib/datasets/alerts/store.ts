import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { datasetWriter } from '@/lib/datasets/storage/writer'
import { definition } from '@/lib/datasets/alerts/definition'
import { alerts, alertsRollup } from '@/lib/datasets/alerts/tables'

// Each row is a new event: its identity (with the time, the partition key) is the conflict key.
export const store = { definition, rows: alerts, rollup: alertsRollup, conflict: ['at', 'id'] } satisfies StoredDataset<typeof alerts>

/** Stores rows of the table with their rollup. */
export const write = datasetWriter(store)

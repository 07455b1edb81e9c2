import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { datasetWriter } from '@/lib/datasets/storage/writer'
import { definition } from '@/lib/datasets/requests/definition'
import { requestLog, requestLogRollup } from '@/lib/datasets/requests/tables'

// A request is unique by (request_id, time): an entry written again (a retry, a replay) is stored
// and counted once.
export const store = { definition, rows: requestLog, rollup: requestLogRollup, conflict: ['request_id', 'time'] } satisfies StoredDataset<typeof requestLog>

/** Stores rows of the table with their rollup. */
export const write = datasetWriter(store)

import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import { datasetWriter } from '@/lib/datasets/storage/writer'
import { definition } from '@/lib/datasets/job-runs/definition'
import { jobRuns, jobRunsRollup } from '@/lib/datasets/job-runs/tables'

// Each row is a new event: its identity (with the time, the partition key) is the conflict key.
export const store = { definition, rows: jobRuns, rollup: jobRunsRollup, conflict: ['started_at', 'id'] } satisfies StoredDataset<typeof jobRuns>

/** Stores rows of the table with their rollup. */
export const write = datasetWriter(store)

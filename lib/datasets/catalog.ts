import type { DatasetDef } from '@/lib/datasets/types'
import { definition as requests } from '@/lib/datasets/requests/definition'
import { definition as dns } from '@/lib/datasets/dns/definition'
import { definition as http } from '@/lib/datasets/http/definition'
import { definition as network } from '@/lib/datasets/network/definition'
import { definition as sessions } from '@/lib/datasets/sessions/definition'
import { definition as jobRuns } from '@/lib/datasets/job-runs/definition'
import { definition as domainChecks } from '@/lib/datasets/domain-checks/definition'
import { definition as alerts } from '@/lib/datasets/alerts/definition'

// The datasets of the query application, one line each; each dataset's folder holds its
// definition (browser-safe data), its tables and its demo generator (lib/datasets/registry.ts).

export type { ColumnDef, ColumnType, DatasetDef, PanelDef } from '@/lib/datasets/types'
export { COLUMN_TYPES } from '@/lib/datasets/types'

const CATALOG = {
  requests,
  dns,
  http,
  network,
  sessions,
  job_runs: jobRuns,
  domain_checks: domainChecks,
  alerts,
} satisfies Record<string, DatasetDef>

export type DatasetId = keyof typeof CATALOG
/** In the order the picker shows them. */
export const DATASET_IDS = Object.keys(CATALOG) as [DatasetId, ...DatasetId[]]
export const DATASETS: Readonly<Record<DatasetId, DatasetDef>> = CATALOG

export function getDataset(id: DatasetId): DatasetDef {
  return DATASETS[id]
}

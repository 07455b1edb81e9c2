import type { DatasetId } from '@/lib/datasets/catalog'
import type { StoredDataset } from '@/lib/datasets/storage/rollups'
import type { SeedContext } from '@/lib/datasets/storage/seed-sql'
import { store as requests } from '@/lib/datasets/requests/store'
import { seedSql as requestsSeed } from '@/lib/datasets/requests/seed'
import { store as dns } from '@/lib/datasets/dns/store'
import { seedSql as dnsSeed } from '@/lib/datasets/dns/seed'
import { store as http } from '@/lib/datasets/http/store'
import { seedSql as httpSeed } from '@/lib/datasets/http/seed'
import { store as network } from '@/lib/datasets/network/store'
import { seedSql as networkSeed } from '@/lib/datasets/network/seed'
import { store as sessions } from '@/lib/datasets/sessions/store'
import { seedSql as sessionsSeed } from '@/lib/datasets/sessions/seed'
import { store as jobRuns } from '@/lib/datasets/job-runs/store'
import { seedSql as jobRunsSeed } from '@/lib/datasets/job-runs/seed'
import { store as domainChecks } from '@/lib/datasets/domain-checks/store'
import { seedSql as domainChecksSeed } from '@/lib/datasets/domain-checks/seed'
import { store as alerts } from '@/lib/datasets/alerts/store'
import { seedSql as alertsSeed } from '@/lib/datasets/alerts/seed'

// The server side of each dataset: its tables and conflict key (its folder's store.ts) and its
// demo generator. The definitions (browser-safe) are listed in lib/datasets/catalog.ts; a dataset
// missing here is a type error. The storage kit (lib/datasets/storage) is below this list: it is
// handed a dataset's store, and what runs over every dataset (seed.ts, demo.ts, partitions.ts)
// sits next to this file.

export interface DatasetStorage extends StoredDataset {
  seedSql: (context: SeedContext) => string
}

export const DATASET_STORAGE: Record<DatasetId, DatasetStorage> = {
  requests: { ...requests, seedSql: requestsSeed },
  dns: { ...dns, seedSql: dnsSeed },
  http: { ...http, seedSql: httpSeed },
  network: { ...network, seedSql: networkSeed },
  sessions: { ...sessions, seedSql: sessionsSeed },
  job_runs: { ...jobRuns, seedSql: jobRunsSeed },
  domain_checks: { ...domainChecks, seedSql: domainChecksSeed },
  alerts: { ...alerts, seedSql: alertsSeed },
}

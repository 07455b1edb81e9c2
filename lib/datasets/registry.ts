import type { PgTable } from 'drizzle-orm/pg-core'
import type { DatasetId } from '@/lib/datasets/catalog'
import type { SeedContext } from '@/lib/datasets/storage/seed-sql'
import { requestLog, requestLogRollup } from '@/lib/datasets/requests/tables'
import { seedSql as requestsSeed } from '@/lib/datasets/requests/seed'
import { gatewayDns, gatewayDnsRollup } from '@/lib/datasets/dns/tables'
import { seedSql as dnsSeed } from '@/lib/datasets/dns/seed'
import { gatewayHttp, gatewayHttpRollup } from '@/lib/datasets/http/tables'
import { seedSql as httpSeed } from '@/lib/datasets/http/seed'
import { gatewayNetwork, gatewayNetworkRollup } from '@/lib/datasets/network/tables'
import { seedSql as networkSeed } from '@/lib/datasets/network/seed'
import { gatewaySessions, gatewaySessionsRollup } from '@/lib/datasets/sessions/tables'
import { seedSql as sessionsSeed } from '@/lib/datasets/sessions/seed'
import { jobRuns, jobRunsRollup } from '@/lib/datasets/job-runs/tables'
import { seedSql as jobRunsSeed } from '@/lib/datasets/job-runs/seed'
import { domainChecks, domainChecksRollup } from '@/lib/datasets/domain-checks/tables'
import { seedSql as domainChecksSeed } from '@/lib/datasets/domain-checks/seed'
import { alerts, alertsRollup } from '@/lib/datasets/alerts/tables'
import { seedSql as alertsSeed } from '@/lib/datasets/alerts/seed'

// The server side of each dataset: its table, its rollup table and its demo generator. The
// definitions (browser-safe) are listed in lib/datasets/catalog.ts; a dataset missing here is a
// type error.

export interface DatasetStorage {
  rows: PgTable
  rollup: PgTable
  seedSql: (context: SeedContext) => string
}

export const DATASET_STORAGE: Record<DatasetId, DatasetStorage> = {
  requests: { rows: requestLog, rollup: requestLogRollup, seedSql: requestsSeed },
  dns: { rows: gatewayDns, rollup: gatewayDnsRollup, seedSql: dnsSeed },
  http: { rows: gatewayHttp, rollup: gatewayHttpRollup, seedSql: httpSeed },
  network: { rows: gatewayNetwork, rollup: gatewayNetworkRollup, seedSql: networkSeed },
  sessions: { rows: gatewaySessions, rollup: gatewaySessionsRollup, seedSql: sessionsSeed },
  job_runs: { rows: jobRuns, rollup: jobRunsRollup, seedSql: jobRunsSeed },
  domain_checks: { rows: domainChecks, rollup: domainChecksRollup, seedSql: domainChecksSeed },
  alerts: { rows: alerts, rollup: alertsRollup, seedSql: alertsSeed },
}

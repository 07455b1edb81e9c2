import { sql } from 'drizzle-orm'
import type { Database } from '@/lib/db/client'
import { rowsOf } from '@/lib/db/rows'
import { DATASET_IDS, DATASETS, type DatasetId } from '@/lib/datasets/catalog'
import { seed } from '@/lib/datasets/seed'

// Demonstration rows for the embedded defaults: a fresh PGlite database (its first start:
// lib/startup.ts registers seedDemoRows to run once the migrations are applied) gets a few hundred rows per gateway dataset (dns, http, network, sessions) and per
// job-history dataset (job_runs, domain_checks), all marked demo = true, so the query application
// shows something before any Logpush job sends real logs or any scheduled job runs. The request log
// needs none: it fills as the API is used. Once removed
// (`npm run db:seed -- --remove-demo`) they do not come back: only a first start seeds.

export const DEMO_DATASETS = DATASET_IDS.filter((id) => DATASETS[id].demoOnFirstStart)
/** Spread over the last days, so the default ranges (24 hours, 7 days) show them. */
const DEMO_DAYS = 3

/** Seeds the demo rows of DEMO_DATASETS; `rows` per dataset. */
export async function seedDemoRows(database: Database, rows: number): Promise<void> {
  await seed(database.db, { rows, days: DEMO_DAYS, datasets: [...DEMO_DATASETS] })
}

/** Deletes every demo row (real rows stay), rollups included; returns the count per dataset. */
export async function removeDemoRows(database: Database): Promise<Record<string, number>> {
  const { rebuildRollup } = await import('@/lib/datasets/storage/rollups')
  const out: Record<string, number> = {}
  for (const id of Object.keys(DATASETS) as DatasetId[]) {
    const result = await database.db.execute(
      sql`WITH d AS (DELETE FROM ${sql.identifier(DATASETS[id].table)} WHERE demo RETURNING 1) SELECT count(*)::int AS n FROM d`,
    )
    out[id] = Number(rowsOf(result)[0]?.n ?? 0)
    if (out[id] > 0) await rebuildRollup(database.db, DATASETS[id])
  }
  return out
}

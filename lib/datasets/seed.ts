import { getTableColumns, sql, type SQL } from 'drizzle-orm'
import type { Db } from '@/lib/db/client'
import { rowsOf } from '@/lib/db/rows'
import { DATASET_IDS, DATASETS, type DatasetId } from '@/lib/datasets/catalog'
import { createPartitions } from '@/lib/datasets/partitions'
import { partitionedTablesOf, withLockRetries } from '@/lib/datasets/storage/partitions'
import { rollupIntoSql } from '@/lib/datasets/storage/rollups'
import { DATASET_STORAGE } from '@/lib/datasets/registry'
import { seedRowsSource, type Target } from '@/lib/datasets/storage/seed-sql'

// Demonstration data for every dataset (`npm run db:seed`), generated inside the database with
// generate_series so a million rows take seconds, not a million round trips. Every row is marked
// demo = true; reseeding replaces earlier demo rows and never touches real ones. Each dataset's
// generator is its folder's seed.ts.
// Each day is built as a plain table (kept real rows, then generated ones), its rollup computed
// from it in SQL, and both are swapped in for the day's partitions with ATTACH PARTITION, which
// builds the indexes once per day (rebuildDay): ten million rows take minutes, not the better
// part of an hour that inserting into the indexed, partitioned table took.

const CHUNK = 100_000

/**
 * Per dataset: an INSERT … SELECT over generate_series(1, n) of the demo rows numbered done + 1 …
 * done + n of `total`. Rows come in time order (r0 runs from 1 down to 0 over the whole seed, one
 * random slot per row), so each chunk appends to its day partitions' indexes instead of touching
 * every page of them.
 */
function insertSql(target: Target, id: DatasetId, n: number, days: number, done: number, total: number): SQL {
  const statement = generatorSql(target, id, n, days, done, total)
  const table = DATASETS[id].table
  if (!statement.startsWith(`INSERT INTO ${table} (`) || !statement.includes('\nSELECT ')) throw new Error(`seed: unexpected statement for ${id}`)
  // Into a plain table (not the partitioned parent): its ids come from the parent's sequence.
  const into = target.idSequence ? `INSERT INTO "${target.table}" (id, ` : `INSERT INTO "${target.table}" (`
  const select = target.idSequence ? `\nSELECT nextval('${target.idSequence}'), ` : '\nSELECT '
  return sql.raw(into + statement.slice(`INSERT INTO ${table} (`.length).replace('\nSELECT ', select))
}

function generatorSql(target: Target, id: DatasetId, n: number, days: number, done: number, total: number): string {
  return DATASET_STORAGE[id].seedSql({ target, days, rows: seedRowsSource(n, done, total) })
}

export interface SeedOptions {
  rows: number
  datasets?: DatasetId[]
  days?: number
  /** Keep earlier demo rows instead of replacing them. */
  append?: boolean
  onProgress?: (dataset: DatasetId, done: number) => void
}

const DAY_MS = 86_400_000
const iso = (t: number) => new Date(t).toISOString()

/**
 * Rebuilds one day partition of a dataset and of its rollup, in one transaction: the day's rows
 * that stay (real rows; every row with `append`) and `n` new demo rows go into a plain table
 * without indexes, the rollup of that table into another, and both replace the day's partitions
 * by ATTACH PARTITION, which builds the indexes once over the whole day instead of row by row. A
 * CHECK constraint on the range spares ATTACH its validating scan. Writers to that day wait
 * meanwhile (the old partitions are locked first).
 */
async function rebuildDay(
  db: Db,
  id: DatasetId,
  day: number,
  generated: { n: number; done: number; total: number; days: number; now: number; idSequence: string },
  append: boolean,
): Promise<void> {
  const d = DATASETS[id]
  const stamp = new Date(day).toISOString().slice(0, 10).replaceAll('-', '')
  const bounds = `FROM ('${iso(day)}') TO ('${iso(day + DAY_MS)}')`
  const columns = Object.values(getTableColumns(DATASET_STORAGE[id].rows))
    .map((c) => `"${c.name}"`)
    .join(', ')
  await withLockRetries(db, async (tx) => {
    const parts = partitionedTablesOf(d).map((p) => ({ ...p, partition: `${p.parent}_p${stamp}`, building: `${p.parent}_p${stamp}_seed` }))
    // Parents before partitions, as queries lock them (lib/datasets/storage/partitions.ts, "Lock
    // order"): the DROP below takes each parent in ACCESS EXCLUSIVE mode, so take it so first.
    // Queries of the dataset wait for this day's rebuild instead of deadlocking with it.
    for (const p of parts) await tx.execute(sql.raw(`LOCK TABLE "${p.parent}" IN ACCESS EXCLUSIVE MODE`))
    for (const p of parts) await tx.execute(sql.raw(`LOCK TABLE "${p.partition}" IN ACCESS EXCLUSIVE MODE`))
    for (const p of parts) await tx.execute(sql.raw(`CREATE TABLE "${p.building}" (LIKE "${p.parent}" INCLUDING DEFAULTS)`))
    const [rows, rollup] = parts
    await tx.execute(sql.raw(`INSERT INTO "${rows.building}" (${columns}) SELECT ${columns} FROM "${rows.partition}"${append ? '' : ' WHERE NOT demo'}`))
    const target: Target = { table: rows.building, idSequence: generated.idSequence, now: iso(generated.now), from: iso(day), to: iso(day + DAY_MS) }
    for (let i = 0; i < generated.n; i += CHUNK) {
      const n = Math.min(CHUNK, generated.n - i)
      await tx.execute(insertSql(target, id, n, generated.days, generated.done + i, generated.total))
    }
    await tx.execute(rollupIntoSql(d, sql`${sql.identifier(rows.building)}`, rollup.building))
    for (const p of parts) {
      await tx.execute(
        sql.raw(`ALTER TABLE "${p.building}" ADD CONSTRAINT "${p.building}_range" CHECK ("${p.key}" >= '${iso(day)}' AND "${p.key}" < '${iso(day + DAY_MS)}')`),
      )
      await tx.execute(sql.raw(`DROP TABLE "${p.partition}"`))
      await tx.execute(sql.raw(`ALTER TABLE "${p.building}" RENAME TO "${p.partition}"`))
      await tx.execute(sql.raw(`ALTER TABLE "${p.parent}" ATTACH PARTITION "${p.partition}" FOR VALUES ${bounds}`))
      await tx.execute(sql.raw(`ALTER TABLE "${p.partition}" DROP CONSTRAINT "${p.building}_range"`))
    }
  })
}

export async function seed(db: Db, opts: SeedOptions): Promise<Record<string, number>> {
  const days = opts.days ?? 30
  const out: Record<string, number> = {}
  const now = Date.now()
  const from = now - days * DAY_MS
  for (const id of opts.datasets ?? DATASET_IDS) {
    const table = DATASETS[id].table
    // Every day's partition exists (rows stranded in the default partition moved into it).
    await createPartitions(db, id, new Date(from), new Date(now))
    const idSequence = String(rowsOf(await db.execute(sql`SELECT pg_get_serial_sequence(${table}, 'id') AS "s"`))[0].s)
    const first = Math.floor(from / DAY_MS) * DAY_MS
    // Earlier demo rows outside the new range: their days are rebuilt without them.
    const stale = opts.append
      ? []
      : rowsOf(
          await db.execute(
            sql`SELECT DISTINCT floor(extract(epoch FROM ${sql.identifier(DATASETS[id].timeColumn)}) / 86400)::bigint * 86400000 AS "day" FROM ${sql.identifier(table)} WHERE demo AND (${sql.identifier(DATASETS[id].timeColumn)} < ${iso(first)}::timestamptz OR ${sql.identifier(DATASETS[id].timeColumn)} >= ${iso(Math.floor(now / DAY_MS) * DAY_MS + DAY_MS)}::timestamptz)`,
          ),
        ).map((r) => Number(r.day))
    for (const day of stale) {
      await createPartitions(db, id, new Date(day), new Date(day))
      await rebuildDay(db, id, day, { n: 0, done: 0, total: opts.rows, days, now, idSequence }, false)
    }
    // Rows are numbered in time order over [from, now]; day D gets the numbers whose times fall in it.
    const numberAt = (t: number) => Math.round((opts.rows * (Math.min(now, Math.max(from, t)) - from)) / (now - from))
    for (let day = first; day <= now; day += DAY_MS) {
      const done = numberAt(day)
      const n = numberAt(day + DAY_MS) - done
      await rebuildDay(db, id, day, { n, done, total: opts.rows, days, now, idSequence }, opts.append ?? false)
      opts.onProgress?.(id, done + n)
    }
    // Visibility map for index-only scans, fresh statistics (of the parent and its partitions).
    await db.execute(sql`VACUUM ANALYZE ${sql.identifier(table)}`)
    await db.execute(sql`VACUUM ANALYZE ${sql.identifier(`${table}_rollup`)}`)
    out[id] = opts.rows
  }
  return out
}

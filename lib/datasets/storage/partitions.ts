import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import type { Db } from '@/lib/db/client'
import { rowsOf } from '@/lib/db/rows'
import type { DatasetDef } from '@/lib/datasets/types'
import { codedCause } from '@/lib/errors'
import { log } from '@/lib/log'

// Day partitions of the dataset tables and their rollups (drizzle/0002_partitions.sql made them
// partitioned). maintainPartitions() creates each day's partition ahead of time and drains rows
// that landed in the default partition (a day nobody created in time: ingest never fails for a
// missing day); dropExpiredPartitions() applies retention by dropping whole day partitions, never
// by DELETE. Both are safe to run from several instances at once, and work on the tables they are
// given; lib/datasets/partitions.ts runs them over every dataset. Start-up makes sure today's and
// the next days' partitions exist (maintainPartitions, part of the database being ready); the
// partition-maintenance job runs both, with its lock and history (lib/jobs: hourly in the server
// process, and on its schedule).

export const PARTITION_DAYS_AHEAD = 3
const DAY_MS = 86_400_000
// Partition DDL waits at most this long for a lock, so it never queues queries behind it for
// longer, and tries again a few times; a day that still could not be created or dropped is retried
// on the next run.
const LOCK_TIMEOUT = '500ms'
const LOCK_ATTEMPTS = 4
const LOCK_RETRY_MS = 250

// Lock order. A query locks a partitioned table's parent first and then its partitions; so does
// every statement here: the parent's lock is taken explicitly before any partition's, so DDL and
// queries can wait for each other but never in a cycle. (Dropping a partition takes the parent in
// ACCESS EXCLUSIVE mode after the partition: without the explicit parent lock first, a dashboard
// holding the parent and waiting for the partition deadlocked with the DROP.) DETACH PARTITION
// CONCURRENTLY, which would spare queries the wait, is refused by Postgres on a table with a
// default partition, and every table here has one.

/** `work` in a transaction whose lock waits time out (55P03), tried LOCK_ATTEMPTS times; other errors are thrown at once. */
export async function withLockRetries<T>(db: Db, work: (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        await tx.execute(sql`SELECT set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`)
        return work(tx)
      })
    } catch (error) {
      const code = codedCause(error)?.code
      if (attempt >= LOCK_ATTEMPTS || (code !== '55P03' && code !== '40P01')) throw error
      await sleep(LOCK_RETRY_MS * attempt)
    }
  }
}

export interface PartitionedTable {
  parent: string
  key: string
}

/** A dataset's partitioned tables: its rows and its rollup. */
export function partitionedTablesOf(dataset: DatasetDef): PartitionedTable[] {
  return [
    { parent: dataset.table, key: dataset.timeColumn },
    { parent: `${dataset.table}_rollup`, key: 'bucket' },
  ]
}

/** UTC midnight of a day, as 2026-01-10. */
const dayOf = (t: Date | number) => new Date(Math.floor(new Date(t).getTime() / DAY_MS) * DAY_MS).toISOString().slice(0, 10)
const partitionName = (parent: string, day: string) => `${parent}_p${day.replaceAll('-', '')}`
const bound = (day: string) => `'${day} 00:00:00+00'`
const nextDay = (day: string) => dayOf(Date.parse(`${day}T00:00:00Z`) + DAY_MS)

async function partitionsOf(db: Db, parent: string): Promise<string[]> {
  const result = await db.execute(
    sql`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass(${parent})`,
  )
  return rowsOf(result).map((r) => String(r.name))
}

/**
 * Creates the partition of one day, moving that day's rows out of the default partition first. The
 * new table is filled while detached and then attached, which locks the parent only in SHARE
 * UPDATE EXCLUSIVE mode: queries and inserts into other days go on meanwhile.
 */
async function createDayPartition(db: Db, table: PartitionedTable, day: string): Promise<number> {
  const name = sql.identifier(partitionName(table.parent, day))
  const parent = sql.identifier(table.parent)
  const fallback = sql.identifier(`${table.parent}_default`)
  const key = sql.identifier(table.key)
  return withLockRetries(db, async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${table.parent}))`)
    if (rowsOf(await tx.execute(sql`SELECT to_regclass(${partitionName(table.parent, day)}) IS NOT NULL AS "exists"`))[0].exists) return 0
    // The parent first (the mode ATTACH takes; queries and inserts go on), then the default
    // partition: inserts for that day wait until the rows they would join have moved.
    await tx.execute(sql`LOCK TABLE ${parent} IN SHARE UPDATE EXCLUSIVE MODE`)
    await tx.execute(sql`LOCK TABLE ${fallback} IN ACCESS EXCLUSIVE MODE`)
    await tx.execute(sql`CREATE TABLE ${name} (LIKE ${parent} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`)
    const range = sql`${key} >= ${sql.raw(bound(day))} AND ${key} < ${sql.raw(bound(nextDay(day)))}`
    const moved = await tx.execute(
      sql`WITH "moved" AS (DELETE FROM ${fallback} WHERE ${range} RETURNING *), "copied" AS (INSERT INTO ${name} SELECT * FROM "moved" RETURNING 1) SELECT count(*)::int AS "n" FROM "copied"`,
    )
    await tx.execute(sql`ALTER TABLE ${parent} ATTACH PARTITION ${name} FOR VALUES FROM (${sql.raw(bound(day))}) TO (${sql.raw(bound(nextDay(day)))})`)
    return Number(rowsOf(moved)[0].n)
  })
}

/** Creates the missing day partitions of `tables` for every day of [from, to]. */
export async function createTablePartitions(db: Db, tables: PartitionedTable[], from: Date, to: Date): Promise<string[]> {
  const created: string[] = []
  for (const table of tables) {
    const existing = new Set(await partitionsOf(db, table.parent))
    for (let t = Date.parse(`${dayOf(from)}T00:00:00Z`); t <= to.getTime(); t += DAY_MS) {
      const day = dayOf(t)
      if (existing.has(partitionName(table.parent, day))) continue
      await createDayPartition(db, table, day)
      created.push(partitionName(table.parent, day))
    }
  }
  return created
}

export interface MaintenanceResult {
  /** Partitions created. */
  created: string[]
  /** Rows moved out of default partitions into their day's partition. */
  drained: number
}

/** Creates the partitions of `tables` for today and PARTITION_DAYS_AHEAD days ahead, and drains their default partitions. */
export async function maintainTablePartitions(db: Db, tables: PartitionedTable[], opts: { now?: Date; daysAhead?: number } = {}): Promise<MaintenanceResult> {
  const now = opts.now ?? new Date()
  const ahead = Array.from({ length: (opts.daysAhead ?? PARTITION_DAYS_AHEAD) + 1 }, (_, i) => dayOf(now.getTime() + i * DAY_MS))
  const result: MaintenanceResult = { created: [], drained: 0 }
  for (const table of tables) {
    const existing = new Set(await partitionsOf(db, table.parent))
    const key = sql.identifier(table.key)
    const stranded = rowsOf(
      await db.execute(sql`SELECT DISTINCT to_char(${key} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "day" FROM ${sql.identifier(`${table.parent}_default`)}`),
    ).map((r) => String(r.day))
    for (const day of [...new Set([...ahead, ...stranded])].sort()) {
      if (existing.has(partitionName(table.parent, day))) continue
      result.drained += await createDayPartition(db, table, day)
      result.created.push(partitionName(table.parent, day))
    }
  }
  return result
}

/** Drops the day partitions of `tables` whose whole day is older than the table's retention. Returns the partitions dropped. */
export async function dropExpiredTablePartitions(
  db: Db,
  tables: Array<PartitionedTable & { retentionDays: number }>,
  opts: { now?: Date } = {},
): Promise<string[]> {
  const now = (opts.now ?? new Date()).getTime()
  const dropped: string[] = []
  for (const table of tables) {
    const cutoff = now - table.retentionDays * DAY_MS
    const pattern = new RegExp(`^${table.parent}_p(\\d{4})(\\d{2})(\\d{2})$`)
    for (const name of await partitionsOf(db, table.parent)) {
      const m = pattern.exec(name)
      if (!m || Date.parse(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`) + DAY_MS > cutoff) continue
      // The parent first, in the mode the DROP takes it in (see "Lock order" above).
      await withLockRetries(db, async (tx) => {
        await tx.execute(sql`LOCK TABLE ${sql.identifier(table.parent)} IN ACCESS EXCLUSIVE MODE`)
        await tx.execute(sql`DROP TABLE IF EXISTS ${sql.identifier(name)}`)
      })
      dropped.push(name)
    }
  }
  return dropped
}

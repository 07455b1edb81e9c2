import 'server-only'
import { sql } from 'drizzle-orm'
import { getDataset } from '@/lib/datasets/catalog'
import { checkFilter } from '@/lib/query/filter'
import { TAIL_CURSOR, TailRequest, type TailResult } from '@/lib/query/schemas'
import { normaliseRow, parse, readOnly, selectList, statement, type ExecOptions } from '@/lib/query/service'

// Live tail: the rows of a dataset written since a cursor, for a page that polls. Rows are followed
// in the order they were written (the table's identity `id`), not by their own time, so a Logpush
// batch that arrives late still shows. Every statement is bounded: it reads only rows whose time is
// at most TAIL_LATE_MS older than the previous answer (an index range on the time column, the
// newest day partitions), and returns at most `limit` rows, the newest, counting the rest as
// skipped. A row written more than TAIL_LATE_MS after its own time is not tailed (the rows page
// has it), nor one from a transaction that commits after a later one was already shown.

/** The first answer: the newest rows of this last stretch. */
export const TAIL_BACKFILL_MS = 60 * 60_000
/** How much older than the previous answer a newly written row may be and still be shown. */
export const TAIL_LATE_MS = 5 * 60_000

const id = (name: string) => sql.identifier(name)

export async function runTail(input: TailRequest, opts: ExecOptions & { now?: Date } = {}): Promise<TailResult> {
  const req = parse(TailRequest, input)
  const dataset = getDataset(req.dataset)
  const filter = await checkFilter(req.filter, dataset)
  const now = (opts.now ?? new Date()).getTime()
  const since = req.since ? parseTailCursor(req.since) : null
  // After a long pause the tail resumes with the last stretch, not everything since.
  const floor = new Date(Math.max(since?.floor ?? 0, now - TAIL_BACKFILL_MS)).toISOString()
  const time = id(dataset.timeColumn)
  const matching = sql`${time} >= ${floor}::timestamptz${filter.sql ? sql` AND (${sql.raw(filter.sql)})` : sql``}`
  const newer = since ? sql` AND "id" > ${since.id}::bigint` : sql``
  // First answer: the newest rows by time (the time index read backwards). Then: by id, newest first.
  const order = since ? sql`"id" DESC` : sql`${time} DESC, "id" DESC`
  const rowsSql = sql`SELECT ${selectList(dataset)} FROM ${id(dataset.table)} WHERE ${matching}${newer} ORDER BY ${order} LIMIT ${req.limit + 1}`
  // The cursor moves past every row written so far, shown or not (the filter does not matter to ids).
  const lastIdSql = sql`SELECT max("id") AS "id" FROM ${id(dataset.table)} WHERE ${time} >= ${floor}::timestamptz${newer}`
  const countSql = sql`SELECT count(*)::bigint AS "n" FROM ${id(dataset.table)} WHERE ${matching}${newer}`

  const started = performance.now()
  const { rows, lastId, matched } = await readOnly(opts, async (session) => {
    const [rows, last] = await Promise.all([session.execute(rowsSql), session.execute(lastIdSql)])
    // Counted only when more arrived than fit, and only on later answers (the first one is a backfill).
    const matched = since && rows.length > req.limit ? Number((await session.execute(countSql))[0]?.n ?? 0) : Math.min(rows.length, req.limit)
    return { rows: rows.slice(0, req.limit), lastId: last[0]?.id, matched }
  })
  const cursorId = lastId === null || lastId === undefined ? (since?.id ?? '0') : String(lastId)
  return {
    dataset: req.dataset,
    columns: dataset.columns.map((c) => c.name),
    rows: rows.reverse().map((r) => normaliseRow(dataset, r)),
    skipped: matched - rows.length,
    cursor: `${new Date(now - TAIL_LATE_MS).toISOString()}~${cursorId}`,
    filter: filter.sql,
    elapsedMs: Math.round((performance.now() - started) * 100) / 100,
    sql: statement(rowsSql),
  }
}

function parseTailCursor(cursor: string): { floor: number; id: string } {
  const [, time, rowId] = TAIL_CURSOR.exec(cursor)!
  return { floor: Date.parse(time!), id: rowId! }
}

import 'server-only'
import { setTimeout as sleep } from 'node:timers/promises'
import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import { getTableColumns, sql } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import ipaddr from 'ipaddr.js'
import { config } from '@/lib/config'
import { getReadyDatabase, type Db } from '@/lib/db/client'
import { rowsOf } from '@/lib/db/rows'
import { DATASET_STORAGE } from '@/lib/datasets/registry'
import { bodyTooLarge, readBody } from '@/lib/http/body'
import { INGEST_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { AppError, causeChain, causeMessage } from '@/lib/errors'
import { log } from '@/lib/log'
import { DATASET_IDS, DATASETS, type ColumnDef, type DatasetDef, type DatasetId } from '@/lib/datasets/catalog'
import { bulkInsertWithRollup } from '@/lib/datasets/storage/bulk-insert'
import { checkIngestSecret } from '@/lib/ingest/secret'

// POST /query/ingest/{dataset}: Logpush's HTTP destination. A batch is gzip'd NDJSON, one log
// record per line with Logpush's field names. Every line is checked; malformed lines are counted
// and reported, the rest are inserted in ONE transaction (never half a batch). Each row carries the
// SHA-256 of its line (unique), so re-delivering a batch — Logpush retries until it gets a 2xx —
// inserts nothing twice.

export const MAX_COMPRESSED_BYTES = INGEST_BODY_MAX_BYTES
export const MAX_BATCH_BYTES = 256 * 1024 * 1024
/** Seconds a sender is asked to wait while the database is unavailable. */
const RETRY_AFTER_S = 30
const MAX_REPORTED_ERRORS = 20

/** The datasets Logpush loads: those whose definition names a Logpush dataset. */
export const INGEST_DATASETS = DATASET_IDS.filter((id) => DATASETS[id].logpush)
export type IngestDataset = DatasetId

export interface IngestResult {
  dataset: IngestDataset
  /** Non-empty lines in the batch. */
  lines: number
  inserted: number
  /** Valid lines already stored (a re-delivered batch, or a line repeated within the batch). */
  duplicates: number
  malformed: number
  /** The first malformed lines (1-based line numbers) and why. */
  errors: Array<{ line: number; message: string }>
}

export function ingestDataset(id: string): IngestDataset {
  if (!(INGEST_DATASETS as string[]).includes(id)) throw new AppError('not_found', `No ingestible dataset "${id}" (one of: ${INGEST_DATASETS.join(', ')}).`)
  return id as IngestDataset
}

/** Body bytes → NDJSON text; gzip is recognised by its magic bytes, whatever the headers say. */
export function decodeBatch(body: Uint8Array): string {
  if (body.byteLength > MAX_COMPRESSED_BYTES) throw bodyTooLarge(MAX_COMPRESSED_BYTES, 'Batch')
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return gunzipSync(body, { maxOutputLength: MAX_BATCH_BYTES }).toString('utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw bodyTooLarge(MAX_BATCH_BYTES, 'Decompressed batch')
      throw new AppError('invalid_input', `Batch is not valid gzip: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  return Buffer.from(body).toString('utf8')
}

// Connection failures (node errors, SQLSTATE classes 08 and 57P, too many connections) and our own
// deadline: the database is unavailable, not the batch at fault.
const UNAVAILABLE = /^(ECONN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|08|57P|53300)/
function databaseUnavailable(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (!(e instanceof Error)) break
    if (e instanceof DatabaseDeadline) return true
    const code = (e as NodeJS.ErrnoException).code
    if (code && UNAVAILABLE.test(code)) return true
    if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message)) return true
  }
  return false
}

class DatabaseDeadline extends Error {}

/** `work` against the database within INGEST_DB_TIMEOUT_MS; a database that is down or hangs is a 503 with Retry-After. */
async function withDatabase<T>(work: () => Promise<T>, timeoutMs = config.INGEST_DB_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseDeadline(`no answer within ${timeoutMs} ms`)), timeoutMs)
  })
  try {
    return await Promise.race([work(), deadline])
  } catch (error) {
    if (!databaseUnavailable(error)) throw error
    log.warn('ingest: database unavailable', {
      error: error instanceof Error ? causeMessage(error).slice(0, 200) : String(error),
    })
    throw new AppError('unavailable', `The database is unavailable; the batch was not stored. Retry after ${RETRY_AFTER_S} seconds.`, {
      retryAfterSeconds: RETRY_AFTER_S,
    })
  } finally {
    clearTimeout(timer)
  }
}

type Value = string | number | boolean | Date | null

const IPV4 = /^(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}$/

/** One Logpush field → our column value; throws a message naming the field. */
function convert(col: ColumnDef, raw: unknown): Value {
  const field = col.source ?? col.name
  if (raw === null || raw === undefined || raw === '') return null
  const bad = (): never => {
    throw new Error(`${field}: expected ${col.type}, got ${JSON.stringify(raw).slice(0, 60)}`)
  }
  switch (col.type) {
    case 'timestamp': {
      let d: Date
      if (typeof raw === 'number') {
        // Logpush timestamp formats: unix seconds, unix milliseconds or unix nanoseconds
        const ms = raw > 1e17 ? raw / 1e6 : raw > 1e11 ? raw : raw * 1000
        d = new Date(ms)
      } else if (typeof raw === 'string') d = new Date(raw)
      else return bad()
      // Postgres timestamps start in 4713 BC; an earlier date would fail the whole batch.
      return Number.isNaN(d.getTime()) || d.getUTCFullYear() < -4712 ? bad() : d
    }
    case 'integer':
    case 'bigint': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN
      if (!Number.isSafeInteger(n)) return bad()
      if (col.type === 'integer' && Math.abs(n) > 2_147_483_647) return bad()
      return n
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN
      return Number.isFinite(n) ? n : bad()
    }
    case 'boolean':
      if (typeof raw === 'boolean') return raw
      if (raw === 'true' || raw === 'false') return raw === 'true'
      return bad()
    case 'inet':
      // The common case, a dotted IPv4 address already in canonical form, without parsing it.
      if (typeof raw === 'string' && IPV4.test(raw) && raw.split('.').every((b) => Number(b) <= 255)) return raw
      return typeof raw === 'string' && ipaddr.isValid(raw) ? ipaddr.parse(raw).toString() : bad()
    case 'text':
      if (Array.isArray(raw)) return raw.length ? raw.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : null
      if (typeof raw === 'object') return JSON.stringify(raw)
      // Postgres text cannot hold NUL; a line carrying one is malformed, not a failed batch.
      return String(raw).includes('\u0000') ? bad() : String(raw)
    case 'json':
      return JSON.stringify(raw)
  }
}

interface ParsedBatch {
  rows: Record<string, Value>[]
  lines: number
  errors: Array<{ line: number; message: string }>
}

/** NDJSON → rows keyed by the table's property names; malformed lines are collected, not thrown. */
export function parseBatch(dataset: DatasetDef, table: PgTable, text: string): ParsedBatch {
  const props = new Map(Object.entries(getTableColumns(table)).map(([prop, column]) => [column.name, prop]))
  const columns = dataset.columns.filter((c) => c.source).map((col) => ({ col, source: col.source!, prop: props.get(col.name)! }))
  const time = dataset.columns.find((c) => c.name === dataset.timeColumn)!.source!
  const rows: Record<string, Value>[] = []
  const errors: ParsedBatch['errors'] = []
  let lines = 0
  text.split('\n').forEach((rawLine, i) => {
    const line = rawLine.trim()
    if (!line) return
    lines++
    try {
      let record: unknown
      try {
        record = JSON.parse(line)
      } catch {
        throw new Error('not valid JSON')
      }
      if (!record || typeof record !== 'object' || Array.isArray(record)) throw new Error('not a JSON object')
      const fields = record as Record<string, unknown>
      if (fields[time] === undefined || fields[time] === null || fields[time] === '') throw new Error(`${time}: missing`)
      const row: Record<string, Value> = { rowHash: createHash('sha256').update(line).digest('hex') }
      for (const { col, source, prop } of columns) row[prop] = convert(col, fields[source])
      rows.push(row)
    } catch (error) {
      errors.push({ line: i + 1, message: error instanceof Error ? error.message : String(error) })
    }
  })
  return { rows, lines, errors }
}

export async function ingestBatch(id: IngestDataset, text: string, opts: { db?: Db; timeoutMs?: number } = {}): Promise<IngestResult> {
  const store = DATASET_STORAGE[id]
  const table = store.rows
  const parsed = parseBatch(DATASETS[id], table, text)
  let inserted = 0
  if (parsed.rows.length > 0) {
    // One transaction: a batch is stored whole or not at all. The rows are copied into a staging
    // table and inserted from it by one statement that adds them to the rollup too; lines already
    // stored (a re-delivery) are skipped by the row hash, the dataset's conflict key
    // (lib/datasets/<dataset>/store.ts; lib/datasets/storage/bulk-insert.ts).
    let db: Db | undefined
    let xactId: string | null = null
    let committing = false
    try {
      await withDatabase(async () => {
        db = opts.db ?? (await getReadyDatabase()).db
        inserted = await db.transaction(async (tx) => {
          xactId = rowsOf<{ id: string }>(await tx.execute(sql`SELECT pg_current_xact_id()::text AS id`))[0].id
          const n = await bulkInsertWithRollup(tx, store, parsed.rows)
          committing = true // the COMMIT goes out next
          return n
        })
      }, opts.timeoutMs)
    } catch (error) {
      // Failing before the COMMIT was sent: nothing was stored (the message says so). After it,
      // the acknowledgement may have been lost with the connection: ask the database.
      if (!committing || !db || !xactId || !(error instanceof AppError) || error.code !== 'unavailable') throw error
      const stored = await storedAfterLostCommit(db, table, xactId, parsed.rows)
      if (!stored) {
        throw new AppError(
          'unavailable',
          `The database stopped answering while the batch was being committed; whether it was stored is unknown. Send it again after ${RETRY_AFTER_S} seconds: a re-sent batch stores nothing twice.`,
          {
            retryAfterSeconds: RETRY_AFTER_S,
          },
        )
      }
      if (!stored.committed) throw error
      log.warn('ingest: the commit acknowledgement was lost; the batch is stored', { dataset: id, inserted: stored.inserted, lines: parsed.rows.length })
      inserted = stored.inserted
    }
  }
  return {
    dataset: id,
    lines: parsed.lines,
    inserted,
    duplicates: parsed.rows.length - inserted,
    malformed: parsed.errors.length,
    errors: parsed.errors.slice(0, MAX_REPORTED_ERRORS),
  }
}

/** How long the check after a lost COMMIT acknowledgement may take, and how often it asks. */
const COMMIT_CHECK_MS = 3000
const COMMIT_CHECK_EVERY_MS = 100

/**
 * After a COMMIT whose answer never came: the transaction's fate from the database (by its id,
 * waiting while it is still in progress: the server finishes a COMMIT it has read), and then which
 * of the batch's lines are stored, by their hashes; `inserted` counts the rows that transaction
 * wrote (their xmin). Null when the database does not answer in time: unknown.
 */
async function storedAfterLostCommit(
  db: Db,
  table: PgTable,
  xactId: string,
  rows: Record<string, Value>[],
): Promise<{ committed: boolean; inserted: number } | null> {
  const end = Date.now() + COMMIT_CHECK_MS
  const within = <T>(work: Promise<T>) => Promise.race([work, sleep(Math.max(0, end - Date.now()), null)])
  const hashes = `{${[...new Set(rows.map((r) => String(r.rowHash)))].join(',')}}` // hex digests: safe in an array literal
  try {
    for (;;) {
      const status = await within(db.execute(sql`SELECT pg_xact_status(${xactId}::xid8) AS status`).then((r) => rowsOf<{ status: string | null }>(r)))
      if (!status) return null
      const state = status[0]?.status
      if (state === 'aborted') return { committed: false, inserted: 0 }
      if (state === 'committed') {
        const xid32 = (BigInt(xactId) % 4294967296n).toString()
        const counted = await within(
          db
            .execute(sql`SELECT count(*) FILTER (WHERE xmin::text = ${xid32})::int AS ours FROM ${table} WHERE row_hash = ANY(${hashes}::text[])`)
            .then((r) => rowsOf<{ ours: number }>(r)),
        )
        return counted ? { committed: true, inserted: Number(counted[0].ours) } : null
      }
      if (Date.now() + COMMIT_CHECK_EVERY_MS > end) return null
      await sleep(COMMIT_CHECK_EVERY_MS)
    }
  } catch (error) {
    log.warn('ingest: could not check a batch after a lost commit acknowledgement', {
      error: error instanceof Error ? error.message.slice(0, 200) : String(error),
    })
    return null
  }
}

/** The whole request: secret, dataset, body → result. */
export async function ingestRequest(datasetParam: string, request: Request, opts: { db?: Db; secret?: string } = {}): Promise<IngestResult> {
  checkIngestSecret(request.headers, opts.secret ?? config.LOGPUSH_SECRET)
  const id = ingestDataset(datasetParam)
  const text = decodeBatch(await readBody(request, MAX_COMPRESSED_BYTES, 'Batch'))
  return ingestBatch(id, text, opts)
}

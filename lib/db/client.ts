import 'server-only'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Pool as NeonPool, neonConfig } from '@neondatabase/serverless'
import { drizzle as drizzleNeon } from 'drizzle-orm/neon-serverless'
import { migrate as migrateNeon } from 'drizzle-orm/neon-serverless/migrator'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator'
import { sql, type SQL } from 'drizzle-orm'
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import pg from 'pg'
import ws from 'ws'
import { config } from '@/lib/config'
import { lockDirectory } from '@/lib/db/directory-lock'
import { ensurePrivateDirectory, tightenContents } from '@/lib/db/private-directory'
import { log, measure, measuring } from '@/lib/log'
import { processSlot } from '@/lib/process-slot'
import { rowsOf, type ResultRow } from '@/lib/db/rows'
import { causeMessage } from '@/lib/errors'
import { cachedFor, LAG_CACHE_MS, markReplicaFailure, readLag, REPLICA_LAG_SQL, type ReplicaLag } from '@/lib/db/replica'

// One schema, three drivers, chosen by configuration: a Neon host → @neondatabase/serverless
// (WebSocket Pool, interactive transactions); any other postgres:// URL → node-postgres; no URL →
// PGlite (Postgres in WASM) in PGLITE_DIR. Application code stays on the query builder and
// `execute()`, whose results carry `.rows` with every one of these drivers.
//
// With QUERY_DATABASE_URL, readOnly() (the query role's reads) goes to that server instead, a read
// replica, through the driver its URL selects by the same rule; everything else stays on DATABASE_URL.

export type Driver = 'neon-serverless' | 'node-postgres' | 'pglite'
export type Db = PgDatabase<PgQueryResultHKT>

/** The role every query-application statement runs as: it can only SELECT the dataset tables. */
export const QUERY_ROLE = 'query_ro'

export type { ResultRow, ReplicaLag }

/** The read replica behind readOnly() (QUERY_DATABASE_URL). */
export interface QueryReplica {
  driver: Driver
  /** host:port/database, never the password. */
  target: string
  /** How far behind the primary it is; read at most once per LAG_CACHE_MS (lib/db/replica.ts). Rejects when it cannot be reached. */
  lag(): Promise<ReplicaLag>
}

/** Runs statements as QUERY_ROLE, read-only, under a statement timeout. */
export interface ReadOnlySession {
  execute(query: SQL): Promise<ResultRow[]>
}

export interface Database {
  driver: Driver
  db: Db
  /** Applies pending migrations from ./drizzle, or another folder (idempotent; serialised across processes on Postgres). */
  migrate(migrationsFolder?: string): Promise<void>
  /**
   * Runs `fn` with a read-only session as QUERY_ROLE whose statements time out after `timeoutMs`.
   * node-postgres: a pool of its own whose connections start with those settings, so a statement
   * costs one round trip and the statements of one call may run concurrently. Neon and PGlite: one
   * READ ONLY transaction whose settings travel with its BEGIN (a pooler in transaction mode would
   * hand session settings to other clients).
   */
  readOnly<T>(timeoutMs: number, fn: (session: ReadOnlySession) => Promise<T>): Promise<T>
  /**
   * The read replica readOnly() reads (QUERY_DATABASE_URL); null: it reads this database. When set,
   * a readOnly() that cannot reach it fails with an error marked as such (lib/db/replica.ts
   * replicaFailure() turns it into the 503 that names the replica).
   */
  replica: QueryReplica | null
  /**
   * Runs `fn` on one connection of its own for as long as it takes (session-level advisory locks:
   * lib/jobs/lock.ts). Null on PGlite, whose one connection is shared by the whole process.
   */
  session: (<T>(fn: (query: SessionQuery) => Promise<T>) => Promise<T>) | null
  close(): Promise<void>
}

/** A parameterised statement on a dedicated connection. */
export type SessionQuery = (text: string, params?: unknown[]) => Promise<ResultRow[]>

/** `fn` on a connection taken from `pool` and returned to it afterwards. */
async function onOwnConnection<T>(connect: () => Promise<PooledClient>, fn: (query: SessionQuery) => Promise<T>): Promise<T> {
  const client = await connect()
  try {
    return await fn(async (text, params) => rowsOf(await client.query(text, params)))
  } finally {
    client.release()
  }
}

export interface DatabaseSettings {
  DATABASE_URL?: string
  /** Where readOnly() reads: a read replica of DATABASE_URL. Unset: DATABASE_URL. */
  QUERY_DATABASE_URL?: string
  PGLITE_DIR: string
  /** Statement timeout of the read-only sessions (QUERY_STATEMENT_TIMEOUT_MS); readOnly() may only tighten it. */
  QUERY_STATEMENT_TIMEOUT_MS?: number
}

export const MIGRATIONS_FOLDER = path.join(process.cwd(), 'drizzle')
// Any constant shared by every instance: pg_advisory_lock serialises concurrent migrators.
const MIGRATION_LOCK = 72_173_911

export function driverFor(url: string | undefined): Driver {
  if (!url) return 'pglite'
  let host: string
  try {
    host = new URL(url).hostname
  } catch {
    throw new Error('DATABASE_URL is not a valid URL (expected postgres://user:pass@host/db)')
  }
  return host === 'neon.tech' || host.endsWith('.neon.tech') ? 'neon-serverless' : 'node-postgres'
}

/** A safe description of where the data lives, for logs and health (never the password). */
export function describeTarget(s: DatabaseSettings): string {
  if (!s.DATABASE_URL) return `PGlite at ${s.PGLITE_DIR}`
  const u = new URL(s.DATABASE_URL)
  return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`
}

interface PooledClient {
  query(text: string, params?: unknown[]): Promise<unknown>
  release(): void
}

/** Connection errors of pooled `pg` clients since start (a reset or dropped connection), each logged once. */
let connectionErrors = 0
export const databaseConnectionErrors = () => connectionErrors

interface GuardedClient {
  on(event: 'error', listener: (error: Error) => void): unknown
  query: (...args: unknown[]) => unknown
  /** Set by the pool at each checkout. */
  release?: (error?: Error) => void
}
interface GuardedPool {
  on(event: 'error', listener: (error: Error) => void): unknown
  on(event: 'connect', listener: (client: GuardedClient) => void): unknown
  query: (...args: unknown[]) => unknown
}

const statementText = (q: unknown) => (typeof q === 'string' ? q : typeof q === 'object' && q !== null && 'text' in q ? String(q.text) : '')
const isRollback = (q: unknown) => /^\s*rollback\s*;?\s*$/i.test(statementText(q))
const isBegin = (q: unknown) => /^\s*(begin|start\s+transaction)\b/i.test(statementText(q))

const DB_METRIC_KEYS = ['db.system.name', 'db.operation.name', 'error.type'] as const

/** A statement in a database client span named by its first keyword (SELECT, INSERT, BEGIN…): never its text or parameters. */
function tracedStatement<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!measuring()) return run()
  const operation = /^\s*([a-z]+)/i.exec(text)?.[1]?.toUpperCase() ?? 'unknown'
  return measure(
    {
      name: operation,
      kind: 'client',
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation },
      metric: { name: 'db.client.operation.duration', description: 'Duration of database statements', keys: DB_METRIC_KEYS },
    },
    run,
  )
}

/**
 * pg's promise-style query calls in spans: the pool's own (the caller's context, the wait for a
 * connection included) and those on a checked-out client. The pool runs its statement on the client
 * with a callback, which is left out so that no statement counts twice; so are streams (COPY).
 */
function traceable(args: unknown[]): boolean {
  const first = args[0] as { submit?: unknown } | undefined
  return measuring() && typeof args[args.length - 1] !== 'function' && typeof first?.submit !== 'function'
}
function traceQueries(target: { query: (...args: unknown[]) => unknown }) {
  const query = target.query.bind(target)
  target.query = (...args: unknown[]) => (traceable(args) ? tracedStatement(statementText(args[0]), () => query(...args) as Promise<unknown>) : query(...args))
}

/**
 * Every client of `pool` gets an 'error' listener for its whole life: a checked-out client has
 * none of its own (pg's pool listens only while a client is idle), and a reset connection then
 * raised an uncaught exception. The error is logged and counted here once; the statement that was
 * running fails with that same error. A ROLLBACK on a client whose connection broke is answered
 * without a round trip (the server ends the transaction with the connection), so a transaction's
 * clean-up (drizzle's, ours) cannot replace the real error with "not queryable"; the pool discards
 * the broken client on release.
 */
function guardClients(pool: GuardedPool, name: string) {
  if (measuring()) traceQueries(pool)
  pool.on('error', () => {}) // an idle client's error: logged by its own listener below
  pool.on('connect', (client) => {
    let broken = false
    client.on('error', (error) => {
      if (broken) return
      broken = true
      connectionErrors++
      log.warn('database connection lost', { pool: name, error: error.message, code: (error as NodeJS.ErrnoException).code ?? null })
    })
    const query = client.query.bind(client)
    client.query = (...args: unknown[]) => {
      if (broken && isRollback(args[0]) && typeof args[args.length - 1] !== 'function')
        return Promise.resolve({ command: 'ROLLBACK', rowCount: null, rows: [], fields: [] })
      const result = query(...args)
      if (!isBegin(args[0]) || !(result instanceof Promise)) return result
      // drizzle's transaction() sends BEGIN before its try/finally: a BEGIN that fails on a broken
      // connection would keep the client checked out for good (the pool shrinks by one each time).
      return result.catch((error: unknown) => {
        if (broken && client.release) {
          const release = client.release
          client.release = () => {} // whoever releases it later: already done
          release(error instanceof Error ? error : new Error(String(error)))
        }
        throw error
      })
    }
    if (measuring()) traceQueries(client)
  })
}

const dialect = new PgDialect()
const DEFAULT_STATEMENT_TIMEOUT_MS = 5000

/**
 * Memory and temporary disk of one query statement: work_mem for each sort or hash (Postgres' own
 * default, stated so a server with a larger one does not lend it to user filters) and
 * temp_file_limit for what sorts and hashes spill to disk. The read-only sessions set them
 * themselves: ALTER ROLE query_ro SET … would never apply, as role settings are read at login and
 * query_ro is entered with SET ROLE. temp_file_limit is a superuser setting (or one granted with
 * GRANT SET ON PARAMETER, Postgres 15+), so it is set before the role changes, and only where the
 * login role may (queryLimitsOf); work_mem any role may set.
 */
const QUERY_WORK_MEM = '4MB'
const QUERY_TEMP_FILE_LIMIT = '256MB'

/** Whether the login role may set temp_file_limit (superuser, or SET granted on it); asked once per database. */
async function mayLimitTempFiles(query: (text: string) => Promise<ResultRow[]>): Promise<boolean> {
  const [role] = await query(`SELECT rolsuper, current_setting('server_version_num')::int AS version FROM pg_roles WHERE rolname = current_user`)
  if (role?.rolsuper === true) return true
  if (Number(role?.version ?? 0) < 150000) return false
  const [granted] = await query(`SELECT has_parameter_privilege('temp_file_limit', 'SET') AS ok`)
  return granted?.ok === true
}

/** Whether temp_file_limit may be set, asked once (again after a failure: the database may be down); a refusal is logged once. */
function tempFileLimitProbe(query: (text: string) => Promise<ResultRow[]>): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined
  return () =>
    (answer ??= mayLimitTempFiles(query).then(
      (ok) => {
        if (!ok) log.warn('the database role may not set temp_file_limit; query statements keep the server default', { wanted: QUERY_TEMP_FILE_LIMIT })
        return ok
      },
      (error: unknown) => {
        answer = undefined
        throw error
      },
    ))
}

/** SET LOCAL statements of a read-only transaction; the values are ours (sizes, a role name, a number). */
const readOnlySettings = (timeoutMs: number, limitTempFiles: boolean) =>
  [
    `SET LOCAL work_mem = '${QUERY_WORK_MEM}'`,
    ...(limitTempFiles ? [`SET LOCAL temp_file_limit = '${QUERY_TEMP_FILE_LIMIT}'`] : []),
    `SET LOCAL ROLE ${QUERY_ROLE}`,
    `SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`,
  ].join('; ')

/** `fn` inside a transaction opened by `begin` (several statements, one round trip) on a pooled client. */
async function inTransaction<T>(client: PooledClient, begin: string, fn: (session: ReadOnlySession) => Promise<T>): Promise<T> {
  try {
    await client.query(begin)
    const result = await fn({
      execute: async (query) => {
        const q = dialect.sqlToQuery(query)
        return rowsOf(await client.query(q.sql, q.params))
      },
    })
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/** Runs the migrations on one pooled connection holding an advisory lock, so instances starting together migrate once. */
async function underMigrationLock(client: PooledClient, run: () => Promise<void>): Promise<void> {
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    await run()
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {})
    client.release()
  }
}

/**
 * Settings for the embedded PGlite, on top of its own start parameters. PGlite's postgresql.conf
 * sizes it like a server (shared_buffers 160 MB, in the WASM heap, touched as pages are read); one
 * process and a few operators need far less. With these and baseline-only WebAssembly compilation
 * (server.mjs), a reopened database after a few hundred queries adds about 70 MB to a process
 * instead of about 140 MB (measured standalone; the server's figure: bench scenario `memory`).
 */
export const PGLITE_SETTINGS = { shared_buffers: '8MB', work_mem: '4MB', maintenance_work_mem: '16MB', temp_buffers: '2MB', wal_buffers: '512kB' }

/**
 * Opens PGlite in `dir`. A new directory is initialised (initdb) in a short-lived child process
 * first: initdb's own WASM instance and file-system bundle (about 400 MB) would otherwise stay
 * in this process's RSS for good, as freed memory is not given back to the system.
 */
async function openPglite(dir: string): Promise<PGlite> {
  const startParams = [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`])]
  let client: PGlite
  if (dir.startsWith('memory://')) client = await PGlite.create(dir, { startParams })
  else {
    // 0700, and refused when others can write it (lib/db/private-directory.ts).
    ensurePrivateDirectory(dir)
    if (!existsSync(path.join(dir, 'PG_VERSION'))) await initialisePgliteDirectory(dir)
    client = await PGlite.create(dir, { startParams })
    // The files of a new database come out 0666 (PGlite's bundle); the ones Postgres creates later are 0600.
    tightenContents(dir)
  }
  if (measuring()) {
    // drizzle's statements outside transactions, and exec(); a transaction's own go through `tx` (readOnly below).
    const query = client.query.bind(client)
    const exec = client.exec.bind(client)
    client.query = ((text: string, ...rest: Parameters<PGlite['query']> extends [string, ...infer R] ? R : never) =>
      tracedStatement(text, () => query(text, ...rest))) as PGlite['query']
    client.exec = (text, options) => tracedStatement(text, () => exec(text, options))
  }
  return client
}

async function initialisePgliteDirectory(dir: string): Promise<void> {
  const script = "import { PGlite } from '@electric-sql/pglite'; const c = await PGlite.create(process.env.PGLITE_INIT_DIR); await c.close()"
  const t0 = performance.now()
  const failure = await new Promise<string | null>((resolve) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: process.cwd(), env: { ...process.env, PGLITE_INIT_DIR: dir }, timeout: 120_000 },
      (error, _stdout, stderr) => resolve(error ? (stderr || error.message).slice(0, 500) : null),
    )
  })
  if (!failure) return log.info('embedded database initialised', { dir, ms: Math.round(performance.now() - t0) })
  // Not fatal: PGlite initialises the directory itself, at the cost of the memory above.
  log.warn('could not initialise the embedded database in a child process; initialising it in this one', { dir, error: failure })
}

/**
 * The database of DATABASE_URL; with QUERY_DATABASE_URL, its readOnly() reads that replica. The
 * replica's pools open on first use, so a replica that is down costs nothing until a query needs it.
 */
export async function createDatabase(s: DatabaseSettings): Promise<Database> {
  const primary = await openDatabase(s, '')
  if (!s.QUERY_DATABASE_URL) return { ...primary, replica: null }
  const replicaSettings = { ...s, DATABASE_URL: s.QUERY_DATABASE_URL }
  const replica = await openDatabase(replicaSettings, 'replica ')
  const lag = cachedFor(LAG_CACHE_MS, async () => {
    try {
      return readLag(rowsOf(await replica.db.execute(sql.raw(REPLICA_LAG_SQL)))[0])
    } catch (error) {
      throw new Error(causeMessage(error), { cause: error }) // the driver's words, not the statement drizzle wraps them in
    }
  })
  return {
    ...primary,
    readOnly: async (timeoutMs, fn) => {
      try {
        return await replica.readOnly(timeoutMs, fn)
      } catch (error) {
        throw markReplicaFailure(error)
      }
    },
    replica: { driver: replica.driver, target: describeTarget(replicaSettings), lag },
    close: async () => {
      await Promise.all([primary.close(), replica.close()])
    },
  }
}

/** One server through the driver its URL selects; `name` prefixes its pools' names in the log. */
async function openDatabase(s: DatabaseSettings, name: string): Promise<Omit<Database, 'replica'>> {
  const driver = driverFor(s.DATABASE_URL)
  if (driver === 'pglite') {
    // One owner per directory, decided before anything in it is read (lib/db/directory-lock.ts).
    const unlock = s.PGLITE_DIR.startsWith('memory://') ? () => {} : lockDirectory(s.PGLITE_DIR)
    const client = await openPglite(s.PGLITE_DIR).catch((error) => {
      unlock()
      throw error
    })
    const db = drizzlePglite({ client })
    const limitTempFiles = tempFileLimitProbe(async (text) => (await client.query<ResultRow>(text)).rows)
    return {
      driver,
      db: db as unknown as Db,
      // One process owns a PGlite directory, so there is nothing to serialise with.
      migrate: (migrationsFolder = MIGRATIONS_FOLDER) => migratePglite(db, { migrationsFolder }),
      // PGlite's transaction() holds its one connection, so the request-log writer's inserts wait
      // instead of landing inside this read-only transaction.
      readOnly: async (timeoutMs, fn) => {
        const settings = readOnlySettings(timeoutMs, await limitTempFiles())
        return client.transaction(async (tx) => {
          await tx.exec(`SET TRANSACTION READ ONLY ISOLATION LEVEL REPEATABLE READ; ${settings}`)
          return fn({
            execute: async (query) => {
              const q = dialect.sqlToQuery(query)
              return (await tracedStatement(q.sql, () => tx.query<ResultRow>(q.sql, q.params))).rows
            },
          })
        })
      },
      session: null,
      close: async () => {
        try {
          await client.close()
          // PGlite rewrites its relation cache files (pg_internal.init) 0644 as it runs.
          if (!s.PGLITE_DIR.startsWith('memory://')) tightenContents(s.PGLITE_DIR)
        } finally {
          unlock()
        }
      },
    }
  }
  if (driver === 'neon-serverless') {
    neonConfig.webSocketConstructor = ws // Node 20 has no global WebSocket
    const pool = new NeonPool({ connectionString: s.DATABASE_URL, max: 10 })
    guardClients(pool as unknown as GuardedPool, `${name}neon`) // a dropped idle connection surfaces on the next query instead
    const db = drizzleNeon({ client: pool })
    const limitTempFiles = tempFileLimitProbe(async (text) => rowsOf(await pool.query(text)))
    return {
      driver,
      db: db as unknown as Db,
      migrate: async (migrationsFolder = MIGRATIONS_FOLDER) => {
        const client = await pool.connect()
        await underMigrationLock(client, () => migrateNeon(drizzleNeon({ client }), { migrationsFolder }))
      },
      readOnly: async (timeoutMs, fn) => {
        const settings = readOnlySettings(timeoutMs, await limitTempFiles())
        return inTransaction(await pool.connect(), `BEGIN READ ONLY ISOLATION LEVEL REPEATABLE READ; ${settings}`, fn)
      },
      session: (fn) => onOwnConnection(() => pool.connect(), fn),
      close: () => pool.end(),
    }
  }
  const pool = new pg.Pool({
    connectionString: s.DATABASE_URL,
    max: 10,
    connectionTimeoutMillis: 5000,
    // A session left inside a transaction (a crashed request) must not hold locks for long.
    idle_in_transaction_session_timeout: 30_000,
  })
  guardClients(pool as unknown as GuardedPool, `${name}main`)
  const db = drizzlePg({ client: pool })
  const sessionTimeoutMs = s.QUERY_STATEMENT_TIMEOUT_MS ?? DEFAULT_STATEMENT_TIMEOUT_MS
  let readers: pg.Pool | undefined
  const limitTempFiles = tempFileLimitProbe(async (text) => rowsOf(await pool.query(text)))
  // Opened on first use: connections that start as query_ro, read-only, with the statement timeout
  // and the memory settings (startup options are checked against the login role, so temp_file_limit
  // goes in only where it may be set: a refused option would refuse the connection).
  const readerPool = async () => {
    const limits = `-c work_mem=${QUERY_WORK_MEM}${(await limitTempFiles()) ? ` -c temp_file_limit=${QUERY_TEMP_FILE_LIMIT}` : ''}`
    if (!readers) {
      readers = new pg.Pool({
        connectionString: s.DATABASE_URL,
        max: 10,
        connectionTimeoutMillis: 5000,
        options: `-c role=${QUERY_ROLE} -c default_transaction_read_only=on -c statement_timeout=${sessionTimeoutMs} ${limits}`,
      })
      guardClients(readers as unknown as GuardedPool, `${name}readers`)
    }
    return readers
  }
  return {
    driver,
    db: db as unknown as Db,
    migrate: async (migrationsFolder = MIGRATIONS_FOLDER) => {
      const client = await pool.connect()
      await underMigrationLock(client, () => migratePg(drizzlePg({ client }), { migrationsFolder }))
    },
    readOnly: async (timeoutMs, fn) => {
      const readers = await readerPool()
      // A tighter timeout than the connections' own needs a transaction to scope it.
      if (timeoutMs < sessionTimeoutMs)
        return inTransaction(await readers.connect(), `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`, fn)
      return fn({
        execute: async (query) => {
          const q = dialect.sqlToQuery(query)
          return (await readers.query(q.sql, q.params)).rows
        },
      })
    },
    session: (fn) => onOwnConnection(() => pool.connect(), fn),
    close: async () => {
      await Promise.all([pool.end(), readers?.end()])
    },
  }
}

const databaseSlot = processSlot<Promise<Database>>('database')
const readySlot = processSlot<Promise<Database>>('database-ready')

/**
 * The process-wide database, created on first use from config. The proxy and the route handlers
 * are separate bundles, so the handle is process-wide (one pool, one PGlite instance).
 */
export function getDatabase(): Promise<Database> {
  let database = databaseSlot.get()
  if (!database) {
    database = createDatabase(config)
    databaseSlot.set(database)
    database.catch(() => databaseSlot.set(undefined)) // a failed start may be retried later
  }
  return database
}

/** What runs once the migrations are applied; `firstStart`: the database had never been migrated. */
export type ReadyHook = (database: Database, state: { firstStart: boolean }) => Promise<void>
const readyHooks = processSlot<ReadyHook[]>('database-ready-hooks')

/** Registers work for when the database is ready (start-up registers the embedded demo rows). */
export function onDatabaseReady(hook: ReadyHook): void {
  readyHooks.getOrCreate(() => []).push(hook)
}

/** True when the database has never been migrated. */
async function neverMigrated(database: Database): Promise<boolean> {
  const result = await database.db.execute(sql`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`)
  return !rowsOf(result)[0]?.present
}

/**
 * The process-wide database with its migrations applied and its ready hooks run. Start-up calls
 * this eagerly; the query functions call it too, so a database that was down at start is
 * migrated once it answers.
 */
export function getReadyDatabase(): Promise<Database> {
  let ready = readySlot.get()
  if (!ready) {
    ready = getDatabase().then(async (database) => {
      const firstStart = await neverMigrated(database)
      await database.migrate()
      for (const hook of readyHooks.get() ?? []) await hook(database, { firstStart })
      return database
    })
    readySlot.set(ready)
    ready.catch(() => readySlot.set(undefined))
  }
  return ready
}

/** For tests and scripts: use this (already migrated) database as the process-wide one. */
export function setDatabase(database: Database | undefined) {
  const ready = database ? Promise.resolve(database) : undefined
  databaseSlot.set(ready)
  readySlot.set(ready)
}

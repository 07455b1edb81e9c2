import { createDatabase, type Database } from '@/lib/db/client'
import { ensureDatabase } from '@/scripts/ensure-database.mjs'
import { startNeonRelay } from '@/test-support/neon-relay'

// The query data suites run on PGlite in memory by default, on the Postgres at
// QUERY_TEST_DATABASE_URL through node-postgres, or through the Neon driver with
// QUERY_TEST_DRIVER=neon (via a loopback WebSocket relay); scripts/test.mjs runs all three. Each
// suite names its own database (`<QUERY_TEST_DATABASE_URL's name>_<suffix>`, created when missing)
// so suites can run in parallel; the suites empty it first.

const pgUrl = process.env.QUERY_TEST_DATABASE_URL || undefined
const neon = process.env.QUERY_TEST_DRIVER === 'neon'
if (neon && !pgUrl) throw new Error('QUERY_TEST_DRIVER=neon needs QUERY_TEST_DATABASE_URL')

export const driverName = neon ? 'neon' : pgUrl ? 'postgres' : 'pglite'

/** The Postgres URL of a suite's database, or undefined on PGlite. */
export function testDatabaseUrl(suffix: string): string | undefined {
  if (!pgUrl) return undefined
  const url = new URL(pgUrl)
  url.pathname = `${url.pathname}${suffix ? `_${suffix}` : ''}`
  return url.toString()
}

export interface TestDatabase {
  database: Database
  close(): Promise<void>
}

/** A database for one suite (not migrated); `fresh` drops and recreates a Postgres one first. */
export async function openTestDatabase(suffix: string, opts: { fresh?: boolean } = {}): Promise<TestDatabase> {
  let url = testDatabaseUrl(suffix)
  if (url && opts.fresh) await dropDatabase(url)
  if (url) await ensureDatabase(url)
  let relay: { close(): Promise<void> } | undefined
  if (url && neon) {
    const target = new URL(url)
    relay = await startNeonRelay({ host: target.hostname, port: Number(target.port || 5432) })
    target.hostname = 'ep-relay-test.eu-central-1.aws.neon.tech' // selects the Neon driver
    target.port = ''
    url = target.toString()
  }
  const database = await createDatabase({ DATABASE_URL: url, PGLITE_DIR: 'memory://' })
  return {
    database,
    close: async () => {
      await database.close()
      await relay?.close()
    },
  }
}

async function dropDatabase(url: string) {
  const { default: pg } = await import('pg')
  const admin = new URL(url)
  const name = decodeURIComponent(admin.pathname.slice(1))
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`)
  } finally {
    await client.end()
  }
}

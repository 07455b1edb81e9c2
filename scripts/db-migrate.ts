// `npm run db:migrate`: applies the migrations in drizzle/ to the configured database
// (DATABASE_URL, or PGlite in PGLITE_DIR). Idempotent; the server also does this at start-up.
import { config } from '@/lib/config'
import { createDatabase, describeTarget } from '@/lib/db/client'

async function main() {
  const database = await createDatabase(config)
  try {
    await database.migrate()
    console.log(`migrations applied (${database.driver}, ${describeTarget(config)})`)
  } finally {
    await database.close()
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
